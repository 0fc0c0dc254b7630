// In config/ because the config schema validates a mailbox's provider against these presets (config may
// not import methods/); `payd mailbox authorize` reads them too.
/**
 * What payd needs to know about each mail provider's OAuth 2.0 service, from their documentation:
 * - Google: "Using OAuth 2.0 for Web Server / Installed Applications" (token endpoint
 *   https://oauth2.googleapis.com/token, authorization https://accounts.google.com/o/oauth2/v2/auth)
 *   and "OAuth 2.0 Mechanism" for Gmail IMAP (scope https://mail.google.com/). Google's device flow
 *   does not allow the Gmail scope, so `payd mailbox authorize` uses the authorization-code flow
 *   with PKCE and a loopback redirect the operator pastes back.
 * - Microsoft identity platform: "Authenticate an IMAP, POP or SMTP connection using OAuth"
 *   (scope https://outlook.office.com/IMAP.AccessAsUser.All plus offline_access for a refresh token)
 *   and "OAuth 2.0 device authorization grant" (endpoints under
 *   https://login.microsoftonline.com/{tenant}/oauth2/v2.0/).
 */
export type ProviderName = 'google' | 'microsoft';
export const PROVIDERS = ['google', 'microsoft'] as const;

export interface ProviderPreset {
  tokenUrl: string;
  scope: string;
  /** Device authorization endpoint (RFC 8628), where the provider allows it for IMAP. */
  deviceUrl?: string;
  /** Authorization endpoint for the code flow with a loopback redirect. */
  authUrl?: string;
  /** The token endpoint needs the client secret (Google's "Desktop app" clients have one). */
  needsClientSecret: boolean;
}

/** Microsoft's endpoints for one tenant: a tenant id or domain, or "common" / "organizations". */
export const microsoftEndpoints = (tenant: string) => ({
  tokenUrl: `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/token`,
  deviceUrl: `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/devicecode`,
});

export const PROVIDER_PRESETS: Record<ProviderName, ProviderPreset> = {
  google: {
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scope: 'https://mail.google.com/',
    authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    needsClientSecret: true,
  },
  microsoft: {
    ...microsoftEndpoints('common'),
    scope: 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
    needsClientSecret: false,
  },
};

// A local OAuth 2.0 authorization server on 127.0.0.1 for the mailbox sign-in tests:
// - POST /token: the refresh-token grant (RFC 6749 §6) and the device-code grant (RFC 8628 §3.4),
//   answering as RFC 6749 §5.1/§5.2 say (JSON, `invalid_grant` for a revoked refresh token);
// - POST /devicecode: the device authorization request (RFC 8628 §3.1/§3.2, Microsoft's field names);
// - POST /introspect: token introspection (RFC 7662) for Dovecot's oauth2 passdb
//   (`introspection_mode = post`: form field `token`; answers `active` and `username`);
// - the authorization-code grant with PKCE (RFC 6749 §4.1.3, RFC 7636 §4.6): the test plays the
//   browser with authorizeCode(), standing in for the provider's consent page.
// Access tokens expire for real: introspection says inactive once their lifetime is over.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOAuthOptions {
  clientId?: string;
  clientSecret?: string | null;
  /** The mailbox user the tokens belong to (Dovecot's username). */
  username?: string;
  /** Lifetime of issued access tokens, in seconds (what `expires_in` says and introspection enforces). */
  accessTtlSeconds?: number;
}

export interface FakeOAuth {
  readonly url: string;
  readonly tokenUrl: string;
  readonly deviceUrl: string;
  readonly introspectionUrl: string;
  readonly clientId: string;
  readonly clientSecret: string | null;
  /** Issues a fresh valid refresh token. */
  issueRefreshToken(): string;
  /** From now on, a refresh hands out a new refresh token and retires the one presented. */
  rotate: boolean;
  /** Answers each token request only after this many ms. */
  delayMs: number;
  accessTtlSeconds: number;
  revoke(refreshToken: string): void;
  /** Makes every access token issued so far inactive (as a provider-side session revocation would). */
  expireAccessTokens(): void;
  /** Every access token and refresh token it ever issued: the tests look for them in logs. */
  readonly issued: string[];
  readonly refreshGrants: number;
  /** Access tokens Dovecot asked about, in order. */
  readonly introspected: string[];
  /** Device flow: the user approves the pending device code (next poll succeeds). */
  approveDevice(): void;
  readonly devicePolls: number;
  readonly lastDeviceRequest: Record<string, string> | undefined;
  /** The consent page: approves an authorization request (its code_challenge) and returns the code. */
  authorizeCode(codeChallenge: string, redirectUri: string): string;
  readonly lastCodeRequest: Record<string, string> | undefined;
  close(): Promise<void>;
}

const token = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;

export async function startFakeOAuth(o: FakeOAuthOptions = {}): Promise<FakeOAuth> {
  const clientId = o.clientId ?? 'payd-test-client';
  const clientSecret = o.clientSecret === undefined ? 'client-secret-xyz' : o.clientSecret;
  const username = o.username ?? 'payd';
  const refresh = new Map<string, 'valid' | 'revoked' | 'retired'>();
  const access = new Map<string, number>(); // token → expires at (ms)
  const issued: string[] = [];
  let refreshGrants = 0;
  const introspected: string[] = [];
  let device: { code: string; approved: boolean } | undefined;
  let devicePolls = 0;
  let lastDeviceRequest: Record<string, string> | undefined;
  let lastCodeRequest: Record<string, string> | undefined;
  const codes = new Map<string, { challenge: string; redirectUri: string }>();

  const state = { rotate: false, delayMs: 0, accessTtlSeconds: o.accessTtlSeconds ?? 3600 };

  const newRefresh = () => {
    const t = token('1//rt-');
    refresh.set(t, 'valid');
    issued.push(t);
    return t;
  };
  const newAccess = () => {
    const t = token('ya29.at-');
    access.set(t, Date.now() + state.accessTtlSeconds * 1000);
    issued.push(t);
    return t;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const reply = (status: number, body: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      };
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method !== 'POST') return reply(405, { error: 'invalid_request' });

      if (path === '/introspect') {
        const t = form.token ?? '';
        introspected.push(t);
        const until = access.get(t);
        return reply(200, until !== undefined && until > Date.now() ? { active: true, username, scope: 'https://mail.google.com/' } : { active: false });
      }

      if (path === '/devicecode') {
        lastDeviceRequest = form;
        if (form.client_id !== clientId) return reply(400, { error: 'invalid_client' });
        device = { code: token('dc-'), approved: false };
        return reply(200, {
          device_code: device.code,
          user_code: 'WDJB-MJHT',
          verification_uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/device`,
          expires_in: 900,
          interval: 1,
          message: 'To sign in, open the page and enter the code WDJB-MJHT.',
        });
      }

      if (path !== '/token') return reply(404, { error: 'not_found' });
      if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
      // Public clients (device flow) send no secret; confidential ones must send the right one.
      if (form.client_id !== clientId || (form.client_secret !== undefined && form.client_secret !== clientSecret) || (clientSecret !== null && form.grant_type === 'refresh_token' && form.client_secret === undefined))
        return reply(401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });

      if (form.grant_type === 'refresh_token') {
        refreshGrants++;
        const st = refresh.get(form.refresh_token ?? '');
        if (st !== 'valid') return reply(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        const body: Record<string, unknown> = { access_token: newAccess(), token_type: 'Bearer', expires_in: state.accessTtlSeconds, scope: form.scope || 'https://mail.google.com/' };
        if (state.rotate) {
          refresh.set(form.refresh_token!, 'retired');
          body.refresh_token = newRefresh();
        }
        return reply(200, body);
      }

      if (form.grant_type === 'urn:ietf:params:oauth:grant-type:device_code') {
        devicePolls++;
        if (!device || form.device_code !== device.code) return reply(400, { error: 'expired_token' });
        if (!device.approved) return reply(400, { error: 'authorization_pending', error_description: 'The user has not yet finished authorizing.' });
        device = undefined;
        return reply(200, { access_token: newAccess(), refresh_token: newRefresh(), token_type: 'Bearer', expires_in: state.accessTtlSeconds, scope: 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access' });
      }
      if (form.grant_type === 'authorization_code') {
        lastCodeRequest = form;
        const c = codes.get(form.code ?? '');
        codes.delete(form.code ?? '');
        const verified = c && form.code_verifier && createHash('sha256').update(form.code_verifier).digest('base64url') === c.challenge;
        if (!c || !verified || form.redirect_uri !== c.redirectUri) return reply(400, { error: 'invalid_grant', error_description: 'Bad Request' });
        return reply(200, { access_token: newAccess(), refresh_token: newRefresh(), token_type: 'Bearer', expires_in: state.accessTtlSeconds, scope: 'https://mail.google.com/' });
      }
      return reply(400, { error: 'unsupported_grant_type' });
    });
  });
  // Dovecot keeps its HTTP connection to the introspection endpoint open and reuses it later;
  // Node's default 5 s keep-alive timeout would close it under Dovecot's feet (a temporary
  // auth failure in the test, not in payd). Real providers keep connections for minutes.
  server.keepAliveTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    tokenUrl: `${url}/token`,
    deviceUrl: `${url}/devicecode`,
    introspectionUrl: `${url}/introspect`,
    clientId,
    clientSecret,
    issueRefreshToken: newRefresh,
    get rotate() {
      return state.rotate;
    },
    set rotate(v: boolean) {
      state.rotate = v;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    get accessTtlSeconds() {
      return state.accessTtlSeconds;
    },
    set accessTtlSeconds(v: number) {
      state.accessTtlSeconds = v;
    },
    revoke: (t) => void refresh.set(t, 'revoked'),
    expireAccessTokens: () => {
      for (const t of access.keys()) access.set(t, 0);
    },
    issued,
    get refreshGrants() {
      return refreshGrants;
    },
    introspected,
    approveDevice: () => {
      if (device) device.approved = true;
    },
    get devicePolls() {
      return devicePolls;
    },
    get lastDeviceRequest() {
      return lastDeviceRequest;
    },
    authorizeCode: (challenge, redirectUri) => {
      const code = token('4/0A-code-');
      codes.set(code, { challenge, redirectUri });
      return code;
    },
    get lastCodeRequest() {
      return lastCodeRequest;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * `payd mailbox authorize` for the UPI mailbox (the descriptor's `mailbox.authorize`): Microsoft
 * signs in by device code, Google by a loopback code with PKCE; either way the token endpoint is
 * reached through undici, loaded only here.
 */
import type { MailboxAuthorizeOptions } from '../../method.ts';
import { codeAuthorization, deviceAuthorization, type Authorized } from './authorize.ts';
import { undiciFormPost } from './token-endpoint.ts';

export function authorizeMailbox(o: MailboxAuthorizeOptions): Promise<Authorized> {
  const client = { tokenUrl: o.tokenUrl, clientId: o.clientId, clientSecret: o.clientSecret, scope: o.scope, post: undiciFormPost };
  if (o.provider === 'microsoft') return deviceAuthorization({ ...client, deviceUrl: o.deviceUrl, prompt: o.prompt });
  return codeAuthorization({ ...client, authUrl: o.authUrl, redirectUri: o.redirectUri, random: o.random, loginHint: o.loginHint, prompt: o.prompt, readLine: o.readLine });
}

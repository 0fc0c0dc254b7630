/**
 * `payd mailbox authorize` for the UPI mailbox (the descriptor's `mailbox.authorize`): Microsoft
 * signs in by device code, Google by a loopback code with PKCE; either way the token endpoint is
 * reached through undici, loaded only here.
 */
import type { MailboxAuthorizeOptions } from '../../method.ts';
import { codeAuthorization, deviceAuthorization, type Authorized } from './authorize.ts';
import { undiciFormPost } from './token-endpoint.ts';

export function authorizeMailbox(options: MailboxAuthorizeOptions): Promise<Authorized> {
  const client = { tokenUrl: options.tokenUrl, clientId: options.clientId, clientSecret: options.clientSecret, scope: options.scope, post: undiciFormPost };
  if (options.provider === 'microsoft') return deviceAuthorization({ ...client, deviceUrl: options.deviceUrl, prompt: options.prompt });
  return codeAuthorization({ ...client, authUrl: options.authUrl, redirectUri: options.redirectUri, random: options.random, loginHint: options.loginHint, prompt: options.prompt, readLine: options.readLine });
}

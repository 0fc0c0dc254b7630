import { createHash } from 'node:crypto';
import { PaydError } from '../../../domain/errors.ts';
import type { Random } from '../../../domain/ports.ts';
import { describePostFailure, oauthErrorCode, oauthErrorText, readGrant, type FormPost } from './token-endpoint.ts';

/** Getting a mailbox's first refresh token, once, with the operator in the loop. */
export interface AuthorizeClient {
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  scope: string;
  post: FormPost;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Authorized {
  refreshToken: string;
  scope: string | undefined;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(new PaydError('UPSTREAM', 'authorization aborted'))), { once: true });
  });

async function postForm(c: AuthorizeClient, url: string, form: Record<string, string>) {
  const timeoutMs = c.timeoutMs ?? 15_000;
  try {
    return await c.post(url, form, timeoutMs, c.signal);
  } catch (err) {
    throw describePostFailure(err, url, timeoutMs);
  }
}

function authorized(json: Record<string, unknown> | undefined): Authorized {
  const grant = readGrant(json);
  if (!grant?.refreshToken)
    throw new PaydError('UPSTREAM', 'the provider issued no refresh token: the scope must allow offline access (Microsoft: offline_access; Google: access_type=offline)');
  return { refreshToken: grant.refreshToken, scope: typeof json?.scope === 'string' ? json.scope : undefined };
}

/**
 * OAuth 2.0 device authorization grant (RFC 8628): payd shows a code, the operator enters it
 * on any device's browser, payd polls the token endpoint until the sign-in is done.
 */
export async function deviceAuthorization(client: AuthorizeClient & { deviceUrl: string; prompt: (text: string) => void; now?: () => number }): Promise<Authorized> {
  const now = client.now ?? Date.now;
  const secrets = [client.clientSecret ?? ''];
  const start = await postForm(client, client.deviceUrl, { client_id: client.clientId, scope: client.scope });
  const j = start.json;
  if (start.status !== 200 || typeof j?.device_code !== 'string' || typeof j.user_code !== 'string')
    throw new PaydError('UPSTREAM', `device authorization refused (HTTP ${start.status}, ${oauthErrorText(j, secrets)})`);
  const uri = typeof j.verification_uri === 'string' ? j.verification_uri : typeof j.verification_url === 'string' ? j.verification_url : undefined;
  if (!uri) throw new PaydError('UPSTREAM', 'device authorization answer has no verification_uri');
  client.prompt(`Open ${uri} in a browser, sign in as the mailbox owner and enter the code ${j.user_code}`);
  let interval = (typeof j.interval === 'number' && j.interval > 0 ? j.interval : 5) * 1000;
  const deadline = now() + (typeof j.expires_in === 'number' && j.expires_in > 0 ? j.expires_in : 900) * 1000;
  const form: Record<string, string> = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: j.device_code, client_id: client.clientId };
  if (client.clientSecret) form.client_secret = client.clientSecret;
  while (now() < deadline) {
    await sleep(interval, client.signal);
    const res = await postForm(client, client.tokenUrl, form);
    if (res.status === 200) return authorized(res.json);
    const code = oauthErrorCode(res.json);
    if (code === 'authorization_pending') continue;
    if (code === 'slow_down') {
      interval += 5_000; // RFC 8628 §3.5
      continue;
    }
    if (code === 'access_denied' || code === 'authorization_declined') throw new PaydError('UPSTREAM', 'the sign-in was declined in the browser');
    if (code === 'expired_token') break;
    throw new PaydError('UPSTREAM', `the token endpoint refused the device code (HTTP ${res.status}, ${oauthErrorText(res.json, secrets)})`);
  }
  throw new PaydError('UPSTREAM', 'the code expired before the sign-in was completed: run the command again');
}

/**
 * Authorization-code flow with PKCE (RFC 7636) and a loopback redirect (RFC 8252 §7.3), for
 * providers whose device flow does not allow mail scopes (Google). On a headless server the
 * browser runs elsewhere: its redirect to 127.0.0.1 fails to load, and the operator pastes the
 * address it shows (or just the code) back.
 */
export async function codeAuthorization(
  client: AuthorizeClient & { authUrl: string; redirectUri: string; random: Random; loginHint?: string; prompt: (text: string) => void; readLine: (question: string) => Promise<string> },
): Promise<Authorized> {
  const verifier = Buffer.from(client.random.bytes(32)).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = Buffer.from(client.random.bytes(16)).toString('base64url');
  const url = new URL(client.authUrl);
  const q: Record<string, string> = {
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: client.scope,
    access_type: 'offline', // Google: issue a refresh token
    prompt: 'consent', // Google: issue it again on a repeated authorization
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  };
  if (client.loginHint) q.login_hint = client.loginHint;
  for (const [k, v] of Object.entries(q)) url.searchParams.set(k, v);
  client.prompt(`Open this address in a browser and sign in as the mailbox owner:\n\n  ${url.href}\n\nThe browser then goes to ${client.redirectUri}, which does not load: copy that whole address from the address bar.`);
  const pasted = (await client.readLine('Paste the address (or the code) here:')).trim();
  let code = pasted;
  if (/^https?:\/\//i.test(pasted)) {
    const back = new URL(pasted);
    const err = back.searchParams.get('error');
    if (err) throw new PaydError('UPSTREAM', `the provider refused the authorization: ${err}`);
    if (back.searchParams.get('state') !== state) throw new PaydError('INVALID_REQUEST', 'the pasted address belongs to another authorization (state differs): run the command again');
    code = back.searchParams.get('code') ?? '';
  }
  if (!code) throw new PaydError('INVALID_REQUEST', 'no authorization code in what was pasted');
  const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, client_id: client.clientId, code_verifier: verifier };
  if (client.clientSecret) form.client_secret = client.clientSecret;
  const res = await postForm(client, client.tokenUrl, form);
  if (res.status !== 200) throw new PaydError('UPSTREAM', `the token endpoint refused the code (HTTP ${res.status}, ${oauthErrorText(res.json, [client.clientSecret ?? '', code])})`);
  return authorized(res.json);
}

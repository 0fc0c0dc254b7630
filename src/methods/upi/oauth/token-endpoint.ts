import { request } from 'undici';
import { PaydError } from '../../../domain/errors.ts';

/** One form POST to an OAuth 2.0 token (or device authorization) endpoint. */
export type FormPost = (url: string, form: Record<string, string>, timeoutMs: number, signal?: AbortSignal) => Promise<{ status: number; json: Record<string, unknown> | undefined }>;

const MAX_BODY = 64 * 1024;

/** RFC 6749 §3.2: form-encoded POST; the answer is JSON whatever the status (§5.1, §5.2). */
export const undiciFormPost: FormPost = async (url, form, timeoutMs, signal) => {
  const timeout = AbortSignal.timeout(timeoutMs);
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await res.body.text();
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = text.length <= MAX_BODY ? JSON.parse(text) : undefined;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    // not JSON: described by status below
  }
  return { status: res.statusCode, json };
};

/** A token endpoint's answer as the rest of payd uses it. Tokens are plain strings only here. */
export interface TokenGrant {
  accessToken: string;
  /** Seconds, when the provider said (RFC 6749 §5.1 RECOMMENDED). */
  expiresIn: number | undefined;
  /** Present when the provider issued (rotated) a refresh token. */
  refreshToken: string | undefined;
}

/** The OAuth error code of a failed answer (RFC 6749 §5.2), e.g. invalid_grant. */
export const oauthErrorCode = (json: Record<string, unknown> | undefined): string | undefined => (typeof json?.error === 'string' ? json.error : undefined);

/** The provider's error text, shortened and with anything that could be a secret we sent removed. */
export function oauthErrorText(json: Record<string, unknown> | undefined, secrets: string[]): string {
  const code = oauthErrorCode(json) ?? 'no error code';
  let desc = typeof json?.error_description === 'string' ? json.error_description : '';
  for (const s of secrets) if (s) desc = desc.split(s).join('[redacted]');
  desc = desc.replace(/\s+/g, ' ').trim();
  if (desc.length > 200) desc = desc.slice(0, 200) + '…';
  return desc ? `${code}: ${desc}` : code;
}

export function readGrant(json: Record<string, unknown> | undefined): TokenGrant | undefined {
  if (!json || typeof json.access_token !== 'string' || json.access_token === '') return undefined;
  const exp = typeof json.expires_in === 'number' ? json.expires_in : typeof json.expires_in === 'string' ? Number(json.expires_in) : NaN;
  return {
    accessToken: json.access_token,
    expiresIn: Number.isFinite(exp) && exp > 0 ? exp : undefined,
    refreshToken: typeof json.refresh_token === 'string' && json.refresh_token !== '' ? json.refresh_token : undefined,
  };
}

/** A transport failure (timeout, refused, reset) as one operator-readable line. */
export function describePostFailure(err: unknown, url: string, timeoutMs: number): PaydError {
  const e = err as { name?: string; code?: string; message?: string };
  const origin = safeOrigin(url);
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT')
    return new PaydError('UPSTREAM', `OAuth token endpoint ${origin} did not answer within ${Math.round(timeoutMs / 100) / 10} s`);
  return new PaydError('UPSTREAM', `cannot reach OAuth token endpoint ${origin}: ${e.code ?? e.message ?? String(err)}`);
}

/** Scheme, host and path only: a URL could carry credentials in its user-info or query. */
export function safeOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

// Standard Webhooks verification (https://www.standardwebhooks.com/) on WebCrypto, so it runs
// wherever `crypto.subtle` does: Node 20+, Bun, Deno, edge runtimes.
import { WebhookVerificationError } from './errors.js';
import type { WebhookPayload } from './types.js';

/** A Fetch `Headers` (Next.js, h3, Deno, Bun) or a plain object of headers (Node's `req.headers`, Express, Fastify). */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, either way; default 300 s (Standard Webhooks' 5 minutes). */
  toleranceSeconds?: number;
  /** The current time in ms (tests); default `Date.now()`. */
  now?: () => number;
}

/** A verified webhook: its body, and `id` (the `webhook-id` header), the key to de-duplicate on and the same id as in GET /api/v1/events. */
export type VerifiedWebhook = WebhookPayload & { id: string };

const encoder = new TextEncoder();

/**
 * Checks a webhook's signature against the raw body, exactly as received (never a parsed and
 * re-serialised one), and returns the parsed body. Pass every secret you accept: during a
 * rotation, the new one and the previous one. Throws WebhookVerificationError otherwise.
 */
export async function verifyWebhook(rawBody: string | Uint8Array | ArrayBuffer, headers: WebhookHeaders, secrets: string | readonly string[], options: VerifyWebhookOptions = {}): Promise<VerifiedWebhook> {
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => s !== '');
  if (keys.length === 0) throw new TypeError('verifyWebhook needs at least one webhook secret (whsec_…)');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  // A replayed old delivery, or one dated in the future, is refused even when its signature is good.
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance (replayed, or a clock is wrong)');

  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody instanceof Uint8Array ? rawBody : new Uint8Array(rawBody);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  const candidates = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => decodeBase64(s.slice(3)))
    .filter((s) => s !== undefined);
  let verified = false;
  for (const secret of keys) {
    const key = decodeBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret);
    if (!key || key.length === 0) throw new TypeError('a webhook secret is not whsec_ followed by base64');
    const expected = await hmacSha256(key, signed);
    for (const candidate of candidates) if (constantTimeEqual(expected, candidate)) verified = true;
  }
  if (!verified) throw new WebhookVerificationError('no webhook-signature matches the body with these secrets');

  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
  return { ...(payload as WebhookPayload), id };
}

async function hmacSha256(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('verifyWebhook needs WebCrypto (crypto.subtle): Node 20+, Bun, Deno or a browser-like runtime');
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, data));
}

/** Same time for any two equal-length inputs: a mismatch's position is never revealed. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

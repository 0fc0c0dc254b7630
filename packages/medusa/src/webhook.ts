import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a webhook was refused: said to the caller, never the secret. */
export class WebhookVerificationError extends Error {}

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
};

/**
 * Standard Webhooks verification of payd's delivery: HMAC-SHA256 over "<id>.<timestamp>.<body>"
 * with the base64 key after "whsec_", on the exact bytes received (a parsed and re-serialised body
 * would not match). Any of the secrets may have signed (both sign during a rotation); a timestamp
 * outside the tolerance is refused, so a captured delivery cannot be replayed later.
 */
export function verifyWebhook(rawBody: string | Buffer, headers: Headers, secrets: string[], o: { toleranceSeconds: number; nowSeconds?: number }): unknown {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not unix seconds');
  const now = o.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > o.toleranceSeconds) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance (an old or replayed delivery)');

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const expected = secrets.map((secret) => createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(signed).digest());
  const matches = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => {
      const given = Buffer.from(s.slice(3), 'base64');
      return expected.some((e) => e.length === given.length && timingSafeEqual(e, given));
    });
  if (!matches) throw new WebhookVerificationError('webhook signature does not verify with the configured secret');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('webhook body is not JSON');
  }
}

import { createHmac } from 'node:crypto';

/** Standard Webhooks signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>, key = base64 after "whsec_". */
export function signatureFor(secret: string, id: string, timestampSec: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64')}`;
}

/** Headers of one delivery; during a secret rotation every secret signs (space-separated). */
export function webhookHeaders(secrets: string[], id: string, timestampSec: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'payd-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': secrets.map((s) => signatureFor(s, id, timestampSec, body)).join(' '),
  };
}

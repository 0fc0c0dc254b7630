import { isIP } from 'node:net';
import { PaydError } from '../domain/errors.ts';

const isLoopbackHost = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
};

/** An INVALID_REQUEST about the `url` field: the API's error shape always names the field. */
const badUrl = (message: string) => new PaydError('INVALID_REQUEST', message, { errors: [{ field: 'url', message }] });

/** A webhook URL must be http(s); plain http only to loopback unless the operator allows it. */
export function checkWebhookUrl(url: string, allowInsecure: boolean): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badUrl(`webhook URL ${JSON.stringify(url)} is not a valid URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw badUrl(`webhook URL must use https (got ${u.protocol})`);
  if (u.username || u.password) throw badUrl('webhook URL must not contain credentials');
  if (u.protocol === 'http:' && !allowInsecure && !isLoopbackHost(u.hostname)) {
    throw badUrl(`webhook URL must use https for ${u.hostname} (plain http is allowed only to loopback, or with webhooks.allowInsecureUrls)`);
  }
  return u;
}

import { isIP } from 'node:net';
import { PaydError } from './errors.ts';
import { embeddedIpv4 } from './ip6.ts';

const isLoopbackHost = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const v4 = isIP(h) === 6 ? embeddedIpv4(h) : isIP(h) === 4 ? h : undefined;
  if (v4 !== undefined) return v4.startsWith('127.');
  return h === '::1';
};

/** An INVALID_REQUEST about the `url` field: the API's error shape always names the field. */
const badUrl = (message: string) => new PaydError('INVALID_REQUEST', message, { errors: [{ field: 'url', message }] });

/**
 * A webhook URL must be http(s), without credentials; loopback only when the operator allows it
 * (webhooks.allowLoopback: a merchant must not reach the daemon's own host), plain http only to
 * loopback unless the operator allows it anywhere. Names are checked again at connect (target.ts).
 */
export function checkWebhookUrl(url: string, o: { allowInsecure: boolean; allowLoopback: boolean }): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badUrl(`webhook URL ${JSON.stringify(url)} is not a valid URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw badUrl(`webhook URL must use https (got ${u.protocol})`);
  if (u.username || u.password) throw badUrl('webhook URL must not contain credentials');
  const loopback = isLoopbackHost(u.hostname);
  if (loopback && !o.allowLoopback) throw badUrl(`webhook URL must not point at loopback (${u.hostname}) unless the operator sets webhooks.allowLoopback`);
  if (u.protocol === 'http:' && !o.allowInsecure && !loopback) {
    throw badUrl(`webhook URL must use https for ${u.hostname} (plain http is allowed only to loopback with webhooks.allowLoopback, or with webhooks.allowInsecureUrls)`);
  }
  return u;
}

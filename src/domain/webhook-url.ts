import { BlockList, isIP } from 'node:net';
import { PaydError } from './errors.ts';
import { embeddedIpv4 } from './ip6.ts';

/**
 * The one address policy of webhooks, used when a URL is set (a literal address) and at connect
 * (every address a name resolves to, webhooks/target.ts). Private, link-local (cloud metadata
 * 169.254.169.254), shared and reserved ranges are refused unless `webhooks.allowPrivateNetworks`;
 * loopback (the daemon's own host: its admin ports, /metrics) unless `webhooks.allowLoopback`.
 * IPv6 forms that reach an IPv4 host (mapped, NAT64, 6to4) are judged as the IPv4 address they carry.
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) BLOCKED.addSubnet(net, bits, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export interface AddressPolicy {
  /** Loopback addresses are allowed (webhooks.allowLoopback, the sandbox). Default false. */
  allowLoopback?: boolean;
}

/** The IPv4 address an IPv6 literal stands for, or the address itself. */
const effectiveAddress = (address: string): string => (isIP(address) === 6 ? (embeddedIpv4(address) ?? address) : address);

/** true: a webhook must not connect to this address (not an IP address at all, too). */
export function isRefusedAddress(address: string, policy: AddressPolicy = {}): boolean {
  const a = effectiveAddress(address);
  const family = isIP(a);
  if (family === 0) return true;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(a, type)) return !policy.allowLoopback;
  return BLOCKED.check(a, type);
}

/** Why `address` is refused, in the words of the setting that would allow it. */
export function refusedAddressReason(address: string): string {
  const a = effectiveAddress(address);
  const carried = a === address ? '' : ` (carried in ${address})`;
  return !isRefusedAddress(a, { allowLoopback: true })
    ? `${a}, a loopback address${carried} (set webhooks.allowLoopback to allow it)`
    : `${a}, a private, link-local or reserved address${carried} (set webhooks.allowPrivateNetworks to allow it)`;
}

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
 * loopback unless the operator allows it anywhere; a literal address the policy above refuses
 * is refused here, when it is set, not only at every delivery. Names are checked at connect (target.ts).
 */
export function checkWebhookUrl(url: string, options: { allowInsecure: boolean; allowLoopback: boolean; allowPrivateNetworks: boolean }): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badUrl(`webhook URL ${JSON.stringify(url)} is not a valid URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw badUrl(`webhook URL must use https (got ${u.protocol})`);
  if (u.username || u.password) throw badUrl('webhook URL must not contain credentials');
  const loopback = isLoopbackHost(u.hostname);
  if (loopback && !options.allowLoopback) throw badUrl(`webhook URL must not point at loopback (${u.hostname}) unless the operator sets webhooks.allowLoopback`);
  const literal = u.hostname.replace(/^\[|\]$/g, '');
  if (!loopback && !options.allowPrivateNetworks && isIP(literal) !== 0 && isRefusedAddress(literal, { allowLoopback: options.allowLoopback })) {
    throw badUrl(`webhook URL points at ${refusedAddressReason(literal)}`);
  }
  if (u.protocol === 'http:' && !options.allowInsecure && !loopback) {
    throw badUrl(`webhook URL must use https for ${u.hostname} (plain http is allowed only to loopback with webhooks.allowLoopback, or with webhooks.allowInsecureUrls)`);
  }
  return u;
}

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import type { HttpPost } from './deliver.ts';
import { embeddedIpv4 } from '../domain/ip6.ts';

/**
 * Where a webhook may connect. The check is on the address actually connected to (undici's
 * `connect` lookup), so a hostname that resolves, or later re-resolves, to an internal
 * address is refused as well as a literal one. Private, link-local (cloud metadata
 * 169.254.169.254), shared and reserved ranges are refused unless `webhooks.allowPrivateNetworks`
 * is true; loopback (the daemon's own host: its admin ports, /metrics) unless the operator sets
 * `webhooks.allowLoopback`. IPv6 forms that reach an IPv4 host (mapped, NAT64, 6to4) are judged
 * as the IPv4 address they carry.
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

export interface TargetPolicy {
  /** Loopback addresses are allowed (webhooks.allowLoopback, the sandbox). Default false. */
  allowLoopback?: boolean;
}

export function isRefusedAddress(address: string, policy: TargetPolicy = {}): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return isRefusedAddress(v4, policy);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, type)) return !policy.allowLoopback;
  return BLOCKED.check(address, type);
}

const refusal = (host: string, address: string) =>
  Object.assign(
    new Error(
      isIP(address) !== 0 && !isRefusedAddress(address, { allowLoopback: true })
        ? `webhook target ${host} is at ${address}, a loopback address (set webhooks.allowLoopback to allow it)`
        : `webhook target ${host} is at ${address}, a private, link-local or reserved address (set webhooks.allowPrivateNetworks to allow it)`,
    ),
    { code: 'EADDRNOTALLOWED' },
  );

type Lookup = typeof dnsLookup;

/** A dns.lookup for the connector that refuses internal addresses. */
export function guardedLookup(resolve: Lookup = dnsLookup, policy: TargetPolicy = {}): Lookup {
  return ((hostname: string, options: { all?: boolean } & Record<string, unknown>, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const bad = addresses.find((a) => isRefusedAddress(a.address, policy));
      if (bad) return callback(refusal(hostname, bad.address));
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  }) as Lookup;
}

/**
 * The webhook POST: one connection pool whose connector checks every address it connects
 * to. A literal IP in the URL never goes through a lookup, so it is checked here first.
 * undici is loaded at the first delivery: CLI commands build the app too and never deliver,
 * and its 0.7 MB cost each of them ~120 ms of start-up (payd --help 320 → 200 ms).
 */
export function createWebhookPost(o: {
  allowPrivateNetworks: boolean;
  allowLoopback: boolean;
  lookup?: Lookup;
  /** Loads the HTTP client (tests make it fail once). */
  load?: () => Promise<typeof import('./undici.ts')>;
}): { post: HttpPost; close(): Promise<void> } {
  const policy: TargetPolicy = { allowLoopback: o.allowLoopback };
  const load = o.load ?? (() => import('./undici.ts'));
  let client: Promise<{ agent: Dispatcher; request: typeof import('./undici.ts').request }> | undefined;
  const connect = () =>
    (client ??= load().then(
      ({ Agent, request }) => ({
        agent: o.allowPrivateNetworks ? new Agent() : new Agent({ connect: { lookup: guardedLookup(o.lookup, policy) } }),
        request,
      }),
      (err: unknown) => {
        // Not remembered: a load that failed (files replaced under a running daemon) is tried again next time.
        client = undefined;
        throw err;
      },
    ));
  const post: HttpPost = async (url, headers, body, timeoutMs, cut) => {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (!o.allowPrivateNetworks && isIP(host) !== 0 && isRefusedAddress(host, policy)) throw refusal(host, host);
    const { agent, request } = await connect();
    // `cut`: shutdown cuts the attempt off early (it is then recorded and retried).
    const signal = cut ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cut]) : AbortSignal.timeout(timeoutMs);
    const res = await request(url, { method: 'POST', headers, body, signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, dispatcher: agent });
    await res.body.dump({ limit: 64 * 1024, signal }).catch(() => {});
    return { statusCode: res.statusCode };
  };
  // Destroyed, not drained: by close time the dispatcher has recorded or cut off every attempt,
  // and a hanging receiver must not hold shutdown past its deadline.
  return { post, close: async () => void (client && (await (await client.catch(() => null))?.agent.destroy())) };
}

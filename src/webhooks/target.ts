import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import type { HttpPost } from './deliver.ts';
import { isRefusedAddress, refusedAddressReason, type AddressPolicy } from '../domain/webhook-url.ts';

/**
 * Where a webhook may connect. The check is on the address actually connected to (undici's
 * `connect` lookup), so a hostname that resolves, or later re-resolves, to an internal
 * address is refused as well as a literal one; the policy itself is the webhook-URL rule's.
 */
const refusal = (host: string, address: string) => Object.assign(new Error(`webhook target ${host} is at ${refusedAddressReason(address)}`), { code: 'EADDRNOTALLOWED' });

type Lookup = typeof dnsLookup;

/** A dns.lookup for the connector that refuses internal addresses. */
export function guardedLookup(resolve: Lookup = dnsLookup, policy: AddressPolicy = {}): Lookup {
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
export function createWebhookPost(options: {
  allowPrivateNetworks: boolean;
  allowLoopback: boolean;
  lookup?: Lookup;
  /** Loads the HTTP client (tests make it fail once). */
  load?: () => Promise<typeof import('./undici.ts')>;
}): { post: HttpPost; close(): Promise<void> } {
  const policy: AddressPolicy = { allowLoopback: options.allowLoopback };
  const load = options.load ?? (() => import('./undici.ts'));
  let client: Promise<{ agent: Dispatcher; request: typeof import('./undici.ts').request }> | undefined;
  const connect = () =>
    (client ??= load().then(
      ({ Agent, request }) => ({
        agent: options.allowPrivateNetworks ? new Agent() : new Agent({ connect: { lookup: guardedLookup(options.lookup, policy) } }),
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
    if (!options.allowPrivateNetworks && isIP(host) !== 0 && isRefusedAddress(host, policy)) throw refusal(host, host);
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

/**
 * The DNS resolver mailauth uses for DKIM keys and DMARC records. Errors keep node's `code`:
 * mailauth reads ENOTFOUND/ENODATA as "no record" and anything else (ESERVFAIL, ETIMEOUT…)
 * as temperror, which the inspector turns into a retry.
 */
import { Resolver } from 'node:dns/promises';
import type { DnsResolver } from './alert.ts';

export function createDnsResolver(dnsServers: string[], timeoutMs: number): DnsResolver {
  // c-ares retries per server; one try each keeps the wall-clock bound close to timeoutMs.
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (dnsServers.length) resolver.setServers(dnsServers);
  return (name, rrtype) =>
    new Promise((resolve, reject) => {
      // Our own deadline too: with several servers c-ares may take timeoutMs per server.
      const timer = setTimeout(() => reject(Object.assign(new Error(`DNS timeout for ${name} ${rrtype}`), { code: 'ETIMEOUT' })), timeoutMs);
      resolver.resolve(name, rrtype).then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
}

import { BlockList, isIP } from 'node:net';
import { HTTPResponse, type H3, type H3Event } from 'h3';
import { errorReply, jsonReply } from './errors.ts';
import { PaydError } from '../domain/errors.ts';

export interface Readiness {
  ready: boolean;
  body: Record<string, unknown>;
}

export interface OpsDeps {
  readiness: () => Readiness;
  /** Prometheus text and its content type; absent: no /metrics route. */
  metrics?: { text: () => Promise<string>; contentType: string; allow: string[] };
}

/** Loopback always; plus the configured networks (validated by the config schema). */
export function metricsClients(allow: string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  for (const entry of allow) {
    const [addr, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (address) => {
    if (!address) return false;
    // An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d.
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (v4) return list.check(v4, 'ipv4');
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

const remoteAddress = (event: H3Event): string | undefined => event.runtime?.node?.req?.socket?.remoteAddress;

/**
 * Operator endpoints without credentials: /readyz for load balancers and monitors, /metrics
 * for Prometheus (loopback and `server.metrics.allow` only). /healthz stays in the API app.
 */
export function registerOps(app: H3, d: OpsDeps): void {
  app.get('/readyz', () => {
    const r = d.readiness();
    return jsonReply(r.body, r.ready ? 200 : 503);
  });
  const m = d.metrics;
  if (!m) return;
  const allowed = metricsClients(m.allow);
  app.get('/metrics', async (event) => {
    if (!allowed(remoteAddress(event))) {
      return errorReply(new PaydError('FORBIDDEN', '/metrics answers loopback clients and server.metrics.allow only'));
    }
    return new HTTPResponse(await m.text(), { status: 200, headers: { 'content-type': m.contentType, 'cache-control': 'no-store' } });
  });
}

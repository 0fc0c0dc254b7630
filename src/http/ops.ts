import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { HTTPResponse, type H3, type H3Event } from 'h3';
import { errorReply, jsonReply } from './errors.ts';
import { addressMatcher, isForwarded, type PeerRequest } from './client-address.ts';
import { describeError, PaydError } from '../domain/errors.ts';
import type { Logger } from '../domain/ports.ts';
import { listen } from './server.ts';

export interface Readiness {
  ready: boolean;
  body: Record<string, unknown>;
}

export interface MetricsEndpoint {
  text: () => Promise<string>;
  contentType: string;
  allow: string[];
  /** server.metrics.listen: /metrics is served there only, never on the API's listener. */
  listen?: { host: string; port: number };
}

export interface OpsDeps {
  readiness: () => Promise<Readiness>;
  log: Logger;
  /** Prometheus text and its content type; absent: no /metrics route. */
  metrics?: MetricsEndpoint;
}

/** Loopback always; plus the configured networks (validated by the config schema). */
export function metricsClients(allow: string[]): (address: string | undefined) => boolean {
  return addressMatcher(['127.0.0.0/8', '::1', ...allow]);
}

type MetricsAnswer = { kind: 'text' } | { kind: 'refused'; error: PaydError };

/**
 * Who may read /metrics: exactly that path as sent (the router also maps /metrics/,
 * /metrics/., /a/../metrics and /%6detrics to this route; a proxy that blocks only the exact
 * path would pass those on), from loopback or server.metrics.allow, and never through a proxy:
 * behind one every client is the proxy's own address, loopback included.
 */
export function metricsGate(allow: string[]): (req: PeerRequest & { url?: string }) => MetricsAnswer {
  const allowed = metricsClients(allow);
  return (req) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return { kind: 'refused', error: new PaydError('NOT_FOUND', `no route for GET ${path}`) };
    if (isForwarded(req)) return { kind: 'refused', error: new PaydError('FORBIDDEN', '/metrics is not served through a proxy; scrape payd directly') };
    if (!allowed(req.socket?.remoteAddress)) return { kind: 'refused', error: new PaydError('FORBIDDEN', '/metrics answers loopback clients and server.metrics.allow only') };
    return { kind: 'text' };
  };
}

/**
 * Operator endpoints without credentials: /readyz for load balancers and monitors, /metrics
 * for Prometheus (loopback and `server.metrics.allow` only; on its own listener when
 * server.metrics.listen is set). /healthz stays in the API app.
 */
export function registerOps(app: H3, deps: OpsDeps): void {
  app.get('/readyz', async () => {
    let r: Readiness;
    try {
      r = await deps.readiness();
    } catch (err) {
      // The database out of reach (503 BUSY with Retry-After) or anything else, in payd's own
      // error shape: a load balancer and an operator both read why.
      if (!(err instanceof PaydError)) deps.log.error('readiness check failed', { error: describeError(err) });
      return errorReply(err);
    }
    return jsonReply(r.body, r.ready ? 200 : 503);
  });
  const m = deps.metrics;
  if (!m || m.listen) return;
  const gate = metricsGate(m.allow);
  app.get('/metrics', async (event: H3Event) => {
    const req = event.runtime?.node?.req;
    const answer = req ? gate(req) : ({ kind: 'refused', error: new PaydError('FORBIDDEN', '/metrics answers socket clients only') } as const);
    if (answer.kind === 'refused') return errorReply(answer.error);
    return new HTTPResponse(await m.text(), { status: 200, headers: { 'content-type': m.contentType, 'cache-control': 'no-store' } });
  });
}

/** The metrics listener (server.metrics.listen): GET /metrics and nothing else. */
export async function serveMetrics(endpoint: MetricsEndpoint & { listen: { host: string; port: number } }): Promise<{ url: string; close(): Promise<void> }> {
  const gate = metricsGate(endpoint.allow);
  const reply = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = req.method === 'GET' ? gate(req) : ({ kind: 'refused', error: new PaydError('METHOD_NOT_ALLOWED', 'use GET') } as const);
    if (answer.kind === 'refused') {
      const r = errorReply(answer.error);
      return reply(res, r.code, r.headers.get('content-type')!, JSON.stringify({ detail: answer.error.message, code: answer.error.code }));
    }
    endpoint.text().then(
      (text) => reply(res, 200, endpoint.contentType, text),
      () => reply(res, 500, 'application/json; charset=utf-8', JSON.stringify({ detail: 'internal error', code: 'INTERNAL' })),
    );
  });
  const { host, port } = endpoint.listen;
  await listen(server, host, port, 'listen for metrics');
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

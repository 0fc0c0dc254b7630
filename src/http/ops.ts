import type { H3 } from 'h3';
import { jsonReply } from './errors.ts';

export interface Readiness {
  ready: boolean;
  body: Record<string, unknown>;
}

export interface OpsDeps {
  readiness: () => Readiness;
}

/**
 * Operator endpoints without credentials: /readyz for load balancers and monitors.
 * (/healthz, plain liveness, stays in the API app.)
 */
export function registerOps(app: H3, d: OpsDeps): void {
  app.get('/readyz', () => {
    const r = d.readiness();
    return jsonReply(r.body, r.ready ? 200 : 503);
  });
}

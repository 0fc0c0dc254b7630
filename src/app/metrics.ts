import type { Clock } from '../domain/ports.ts';
import { createPrometheusMetrics, type ScrapeSources } from '../metrics/prometheus.ts';
import type { MethodSilence } from '../methods/method.ts';
import { isDown } from '../workers/source-health.ts';
import type { WorkerSet } from './readiness.ts';

/** The Prometheus metrics. Read at scrape time: the running sources' health and the lease role (set by start()). */
export function createAppMetrics(deps: { workers: () => WorkerSet; clock: Clock; silences: readonly MethodSilence[]; rates: ScrapeSources['rates'] }) {
  const { clock, silences } = deps;
  return createPrometheusMetrics({
    sources: () => {
      const workerSet = deps.workers();
      return workerSet?.role() === 'leader' ? workerSet.health.map((h) => ({ key: h.key, up: !isDown(h.status()), lastOkAt: h.lastOkAt, lagMs: h.lagMs() })) : [];
    },
    leader: () => deps.workers()?.role() === 'leader',
    now: () => clock.now(),
    alerts: silences.length > 0 ? async () => (await Promise.all(silences.map(async (s) => (await s.status()).accounts.map((a) => ({ method: s.method, ...a }))))).flat() : undefined,
    rates: deps.rates,
  });
}

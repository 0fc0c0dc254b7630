import { isoOrNull } from '../domain/iso-time.ts';
import type { Readiness } from '../http/ops.ts';
import type { MethodSilence } from '../methods/method.ts';
import { isDown, type SourceHealth } from '../workers/source-health.ts';

/**
 * The running workers as readiness sees them (null until start() started them): `role` as this
 * node last saw it (metrics, the console), `confirmedRole` as the database has it now (/readyz).
 */
export type WorkerSet = { role: () => 'leader' | 'standby'; confirmedRole: () => Promise<'leader' | 'standby'>; health: SourceHealth[] } | null;

/** /readyz: every running source up, and no method's silence past its limit (where that alarm is on). */
export function createReadiness(deps: { workers: () => WorkerSet; silences: readonly MethodSilence[]; rates?: () => Promise<Array<{ pair: string; rate: string | null }>> }) {
  return async function readiness(): Promise<Readiness> {
    const workerSet = deps.workers();
    const sourcesOut: Record<string, unknown> = {};
    const failing: string[] = [];
    for (const h of workerSet?.health ?? []) {
      const st = h.status();
      sourcesOut[h.key] = st;
      if (isDown(st)) failing.push(h.key);
    }
    const workers = workerSet ? await workerSet.confirmedRole() : 'off';
    let alerts: Record<string, unknown> | undefined;
    for (const watch of deps.silences) {
      if (watch.expectMs === undefined) continue;
      const s = await watch.status();
      alerts ??= {};
      alerts[watch.method] = { state: s.silent ? 'silent' : 'ok', last_verified_at: isoOrNull(s.lastAlertAt), waiting_since: isoOrNull(s.waitingSince), expect_alert_within_hours: s.expectMs! / 3_600_000 };
      if (s.silent && !failing.includes(watch.method)) failing.push(watch.method);
    }
    const ready = failing.length === 0;
    const body: Record<string, unknown> = { status: ready ? 'ok' : 'unavailable', workers, sources: sourcesOut };
    if (alerts) body.alerts = alerts;
    // Noted, not failing: a pair without a fresh rate refuses only creates priced in it.
    const stale = ((await deps.rates?.()) ?? []).filter((p) => p.rate === null).map((p) => p.pair);
    if (stale.length > 0) body.rates = { stale };
    if (!ready) body.failing = failing;
    return { ready, body };
  };
}

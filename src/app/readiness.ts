import { isoOrNull } from '../domain/iso-time.ts';
import type { Readiness } from '../http/ops.ts';
import type { UpiSilence } from '../services/upi-silence.ts';
import { isDown, type SourceHealth } from '../workers/source-health.ts';

/** The running workers as readiness sees them (null until start() started them). */
export type WorkerSet = { role: () => 'leader' | 'standby'; health: SourceHealth[] } | null;

/** /readyz: every running source up, and no UPI silence past its limit (when that alarm is on). */
export function createReadiness(d: { workers: () => WorkerSet; upiSilence: UpiSilence | null; rates?: () => Promise<Array<{ pair: string; rate: string | null }>> }) {
  return async function readiness(): Promise<Readiness> {
    const workerSet = d.workers();
    const sourcesOut: Record<string, unknown> = {};
    const failing: string[] = [];
    for (const h of workerSet?.health ?? []) {
      const st = h.status();
      sourcesOut[h.key] = st;
      if (isDown(st)) failing.push(h.key);
    }
    const workers = workerSet ? workerSet.role() : 'off';
    let alerts: Record<string, unknown> | undefined;
    const upiSilence = d.upiSilence;
    if (upiSilence?.expectMs !== undefined) {
      const s = await upiSilence.status();
      alerts = { UPI: { state: s.silent ? 'silent' : 'ok', last_verified_at: isoOrNull(s.lastAlertAt), waiting_since: isoOrNull(s.waitingSince), expect_alert_within_hours: s.expectMs! / 3_600_000 } };
      if (s.silent && !failing.includes('UPI')) failing.push('UPI');
    }
    const ready = failing.length === 0;
    const body: Record<string, unknown> = { status: ready ? 'ok' : 'unavailable', workers, sources: sourcesOut };
    if (alerts) body.alerts = alerts;
    // Noted, not failing: a pair without a fresh rate refuses only creates priced in it.
    const stale = ((await d.rates?.()) ?? []).filter((p) => p.rate === null).map((p) => p.pair);
    if (stale.length > 0) body.rates = { stale };
    if (!ready) body.failing = failing;
    return { ready, body };
  };
}

/**
 * What the condition alarms look at, each time the feed runs: the sources running here (the
 * leader's), each method's silence (UPI's mailbox), webhook endpoints with an event failing for over 15 minutes, and bank
 * alerts that could not be read in the last 24 hours.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/open.ts';
import type { Observation, OpenConditions } from '../../domain/notify/conditions.ts';
import { ageText } from '../../domain/notify/text.ts';
import type { Clock } from '../../domain/ports.ts';
import type { MethodSilence } from '../../methods/method.ts';

/** A running source as the leader sees it (workers/source-health.ts). */
export interface WatchedSource {
  key: string;
  status(): { state: string; last_error?: string; lag_seconds?: number; max_lag_seconds?: number };
}

/**
 * The states that are an outage. Only `ok` (the last cycle completed) ends one: `failing` (the last
 * cycle failed, one completed recently) neither opens nor closes an outage, so an upstream that
 * keeps failing is not "recovered" between its failures. starting / standby say nothing yet.
 */
const BAD = new Set(['down', 'crashed', 'stale', 'blocked', 'lagging']);
const GOOD = new Set(['ok']);
export const WEBHOOK_FAILING_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

export function createObservations(deps: { db: Db; clock: Clock; sources: () => WatchedSource[]; silences: readonly MethodSilence[] }) {
  function sources(): Observation[] {
    return deps.sources().map((s) => {
      const st = s.status();
      const detail = st.state === 'lagging' ? `${Math.round(st.lag_seconds ?? 0)} s behind, limit ${st.max_lag_seconds} s` : `${st.state}${st.last_error ? `: ${st.last_error.slice(0, 120)}` : ''}`;
      return { kind: 'source.down', subject: s.key, bad: BAD.has(st.state) ? true : GOOD.has(st.state) ? false : undefined, detail };
    });
  }

  async function silence(): Promise<Observation[]> {
    const out: Observation[] = [];
    for (const watch of deps.silences) {
      if (watch.expectMs === undefined) continue;
      const s = await watch.status();
      // The alarm's kind keeps its first name (operators filter on it); the subject is the method.
      out.push({ kind: 'upi.silent', subject: watch.method, bad: s.silent, detail: ageText(s.waitingSince === null ? 0 : deps.clock.now() - s.waitingSince) });
    }
    return out;
  }

  async function webhooks(open: OpenConditions): Promise<Observation[]> {
    const now = deps.clock.now();
    const failing = await deps.db
      .selectFrom('events')
      .innerJoin('merchants', 'merchants.id', 'events.merchant_id')
      .select(['merchants.id', 'merchants.name', sql<number>`min(events.created_at)`.as('since')])
      .where('events.status', '=', 'pending')
      .where('events.attempts', '>', 0)
      .where('events.created_at', '<=', now - WEBHOOK_FAILING_MS)
      .groupBy(['merchants.id', 'merchants.name'])
      .execute();
    const out: Observation[] = failing.map((m) => ({ kind: 'webhook.failing', subject: `${m.name}, ${m.id}`, bad: true, detail: ageText(now - Number(m.since)) }));
    const seen = new Set(out.map((o) => o.subject));
    // An endpoint no longer failing is not in the query: its open episode ends with one "recovered".
    for (const c of Object.values(open)) if (c.kind === 'webhook.failing' && !seen.has(c.subject)) out.push({ kind: 'webhook.failing', subject: c.subject, bad: false, detail: '' });
    return out;
  }

  async function unreadable(open: OpenConditions): Promise<Observation[]> {
    const since = deps.clock.now() - DAY_MS;
    const counts = new Map<string, number>();
    const unread = await deps.db.selectFrom('upi_unread_alerts').select(['bank', sql<number>`count(*)`.as('n')]).where('observed_at', '>=', since).groupBy('bank').execute();
    for (const r of unread) counts.set(r.bank, (counts.get(r.bank) ?? 0) + Number(r.n));
    const parked = await deps.db.selectFrom('upi_parked_mail').select(['bank', sql<number>`count(*)`.as('n')]).where('parked_at', '>=', since).where('bank', 'is not', null).groupBy('bank').execute();
    for (const r of parked) counts.set(r.bank!, (counts.get(r.bank!) ?? 0) + Number(r.n));
    const out: Observation[] = [...counts].map(([bank, n]) => ({ kind: 'alerts.unreadable', subject: bank, bad: true, detail: String(n) }));
    for (const c of Object.values(open)) if (c.kind === 'alerts.unreadable' && !counts.has(c.subject)) out.push({ kind: 'alerts.unreadable', subject: c.subject, bad: false, detail: '0' });
    return out;
  }

  return async (open: OpenConditions): Promise<Observation[]> => [...sources(), ...(await silence()), ...(await webhooks(open)), ...(await unreadable(open))];
}

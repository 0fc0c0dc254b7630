import { sql } from 'kysely';
import { amountFromDb, amountFromSum, amountSum, amountToDb } from '../db/amounts.ts';
import type { Db } from '../db/open.ts';
import type { IntentsTable, IntentStatus, PaymentsTable } from '../db/schema.ts';
import { PaydError } from '../domain/errors.ts';
import type { Method } from '../domain/methods.ts';
import { candidateOf, unmatchedCandidates, type UnmatchedCandidate } from './unmatched-candidates.ts';

/**
 * The operator console's read side: what the CLI's list commands read, across all merchants,
 * paged with keyset cursors on indexed columns (migration 024) so every page costs the same
 * on a database of a million intents.
 */

/** Position after which the next page starts: (time, id) of the last row served. */
export const encodeCursor = (at: number, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');

export function decodeCursor(cursor: string): { at: number; id: string } {
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(p) && p.length === 2 && Number.isSafeInteger(p[0]) && typeof p[1] === 'string' && p[1].length <= 300) return { at: p[0], id: p[1] };
  } catch {
    // falls through
  }
  throw new PaydError('INVALID_REQUEST', 'not a cursor this console issued');
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface IntentFilter {
  /** An intent id or an order id (exact). */
  q?: string;
  status?: IntentStatus;
  method?: Method;
  /** created_at bounds, ms: from inclusive, to exclusive. */
  from?: number;
  to?: number;
  /** Only the intents customers created from this payment link. */
  linkId?: string;
  cursor?: string;
  limit: number;
}

const n = (v: unknown) => Number(v ?? 0);

export function createConsoleViews(deps: { db: Db }) {
  function page<T, R>(rows: R[], limit: number, key: (r: R) => [number, string], map: (r: R) => T): Page<T> {
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items: items.map(map), next: rows.length > limit && last ? encodeCursor(...key(last)) : null };
  }

  return {
    /** Intents of every merchant, newest first. */
    async intents(f: IntentFilter, now: number): Promise<Page<IntentsTable>> {
      let q = deps.db.selectFrom('intents').selectAll();
      const term = f.q?.trim();
      if (term) q = q.where((eb) => eb.or([eb('id', '=', term.toLowerCase()), eb('order_id', '=', term)]));
      // pending and expired as the API reports them: a pending intent past expires_at is expired.
      // `expires_at + 0`: the (status, created_at, id) index must drive (newest first, no sort),
      // not the (status, expires_at) one.
      if (f.status === 'pending') q = q.where('status', '=', 'pending').where(sql<number>`${sql.ref('expires_at')} + 0`, '>', now);
      else if (f.status === 'expired') q = q.where('status', 'in', ['expired', 'pending']).where((eb) => eb.or([eb('status', '=', 'expired'), eb('expires_at', '<=', now)]));
      else if (f.status) q = q.where('status', '=', f.status);
      if (f.method) q = q.where('method', '=', f.method);
      if (f.from !== undefined) q = q.where('created_at', '>=', f.from);
      if (f.to !== undefined) q = q.where('created_at', '<', f.to);
      if (f.linkId !== undefined) q = q.where('link_id', '=', f.linkId);
      if (f.cursor) {
        const at = decodeCursor(f.cursor);
        q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(at.at, at.id)));
      }
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit + 1).execute();
      return page(rows, f.limit, (r) => [r.created_at, r.id], (r) => r);
    },

    /** Recorded payments of one status (unmatched: waiting for the operator), newest first. */
    async payments(f: { status: PaymentsTable['status']; cursor?: string; limit: number }): Promise<Page<PaymentsTable>> {
      let q = deps.db.selectFrom('payments').selectAll().where('status', '=', f.status);
      if (f.cursor) {
        const at = decodeCursor(f.cursor);
        q = q.where((eb) => eb(eb.refTuple('observed_at', 'id'), '<', eb.tuple(at.at, at.id)));
      }
      const rows = await q.orderBy('observed_at', 'desc').orderBy('id', 'desc').limit(f.limit + 1).execute();
      return page(rows, f.limit, (r) => [r.observed_at, r.id], (r) => r);
    },

    /** One unmatched payment by its reference (the assign form shown again after a mistake). */
    async unmatched(txRef: string): Promise<PaymentsTable | undefined> {
      return deps.db.selectFrom('payments').selectAll().where('tx_ref', '=', txRef).where('status', '=', 'unmatched').executeTakeFirst();
    },

    /**
     * The orders an unmatched payment may be for, best first: the intent the ledger tied it to
     * (late, short, canceled…), then open or expired intents of its method asking within a tenth
     * of its amount, newest first.
     */
    /** The orders an unmatched payment may be for: the one the ledger tied it to first, then those asking near its amount. */
    async candidates(payment: PaymentsTable, limit: number): Promise<UnmatchedCandidate[]> {
      const near = await unmatchedCandidates(deps.db, { method: payment.method, receiver: payment.receiver, amountMinor: amountFromDb(payment.amount_minor), observedAt: Number(payment.observed_at) }, limit);
      const tied = payment.intent_id === null ? undefined : await deps.db.selectFrom('intents').selectAll().where('id', '=', payment.intent_id).executeTakeFirst();
      return [...(tied ? [candidateOf(tied)] : []), ...near.filter((c) => c.intentId !== tied?.id)].slice(0, limit);
    },

    /** Open or expired orders of `method` asking exactly `amountMinor` (the price or the unique amount), newest first. */
    async ordersAsking(method: string, amountMinor: bigint, limit: number): Promise<Array<Pick<IntentsTable, 'id' | 'order_id'>>> {
      return deps.db
        .selectFrom('intents')
        .select(['id', 'order_id'])
        .where('method', '=', method)
        .where('status', 'in', ['pending', 'expired'])
        .where((eb) => eb.or([eb('amount_minor', '=', amountToDb(amountMinor)), eb('pay_amount_minor', '=', amountToDb(amountMinor))]))
        .orderBy('created_at', 'desc')
        .limit(limit)
        .execute();
    },

    /** Observations refused before they became payments (forged or unreadable mail…), newest first. */
    async rejections(f: { cursor?: string; limit: number }) {
      let q = deps.db.selectFrom('rejections').select(['ref', 'source', 'method', 'reason', 'detail_json', 'observed_at', sql<number>`length(raw)`.as('raw_bytes')]);
      if (f.cursor) {
        const at = decodeCursor(f.cursor);
        q = q.where((eb) => eb(eb.refTuple('observed_at', 'ref'), '<', eb.tuple(at.at, at.id)));
      }
      const rows = await q.orderBy('observed_at', 'desc').orderBy('ref', 'desc').limit(f.limit + 1).execute();
      return page(rows, f.limit, (r) => [r.observed_at, r.ref], (r) => ({ ...r, raw_bytes: r.raw_bytes === null ? null : n(r.raw_bytes) }));
    },

    /** One rejection with its stored raw message (bytes, shown by the caller as text). */
    async rejection(ref: string) {
      const r = await deps.db.selectFrom('rejections').selectAll().where('ref', '=', ref).executeTakeFirst();
      if (!r) throw new PaydError('NOT_FOUND', `no rejected observation ${ref}`);
      return r;
    },

    /** Settled count and sum per method since `since` (ms). */
    async settledSince(since: number): Promise<Array<{ method: Method; count: number; sumMinor: bigint }>> {
      const rows = await deps.db
        .selectFrom('intents')
        .select(['method', (eb) => eb.fn.countAll<number>().as('count'), amountSum(deps.db, sql.ref('pay_amount_minor')).as('sum')])
        .where('status', '=', 'settled')
        .where('verified_at', '>=', since)
        .groupBy('method')
        .orderBy('method')
        .execute();
      return rows.map((r) => ({ method: r.method as Method, count: n(r.count), sumMinor: amountFromSum(r.sum) }));
    },

    /** What waits: open intents, held and unmatched payments, the webhook backlog and endpoints with failed events. */
    async waiting(now: number) {
      const count = async (q: { executeTakeFirst(): Promise<{ c: unknown } | undefined> }) => n((await q.executeTakeFirst())?.c);
      const open = await count(deps.db.selectFrom('intents').select((eb) => eb.fn.countAll().as('c')).where('status', '=', 'pending').where('expires_at', '>', now));
      const unmatched = await count(deps.db.selectFrom('payments').select((eb) => eb.fn.countAll().as('c')).where('status', '=', 'unmatched'));
      // Held payments: attributed to an intent, waiting for accept or mark refunded.
      const held = await count(deps.db.selectFrom('payments').select((eb) => eb.fn.countAll().as('c')).where('status', '=', 'held'));
      const backlog = await count(deps.db.selectFrom('events').select((eb) => eb.fn.countAll().as('c')).where('status', '=', 'pending'));
      const failing = await deps.db
        .selectFrom('events as e')
        .innerJoin('merchants as m', 'm.id', 'e.merchant_id')
        .select(['m.id', 'm.name', 'm.webhook_url', (eb) => eb.fn.countAll<number>().as('failed'), (eb) => eb.fn.max('e.created_at').as('last')])
        .where('e.status', '=', 'failed')
        .groupBy(['m.id', 'm.name', 'm.webhook_url'])
        .orderBy('failed', 'desc')
        .limit(20)
        .execute();
      return { open, held, unmatched, backlog, failing: failing.map((f) => ({ clientId: f.id, name: f.name, url: f.webhook_url, failed: n(f.failed), lastAt: n(f.last) })) };
    },
  };
}

export type ConsoleViews = ReturnType<typeof createConsoleViews>;

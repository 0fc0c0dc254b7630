import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { databaseNowMs } from './clock.ts';
import { isPostgres, type Db } from './open.ts';
import type { Database, EventsTable } from './schema.ts';

export interface ClaimRequest {
  /** Epoch ms by the caller's clock (due times and delivery leases are written with it). */
  now: number;
  /** The delivery lease runs until then. */
  lockedUntil: number;
  /** Written to locked_by (the worker lease holder), null for the CLI. */
  holder: string | null;
  limit: number;
  /** Events already in flight in this process. */
  exclude: ReadonlySet<string>;
  /**
   * Claim only while this worker-lease holder still holds an unexpired lease (fencing: a
   * leader that lost its lease while stalled claims nothing more). PostgreSQL checks expiry by
   * the database's clock, like the lease itself (workers/lease.ts).
   */
  fence?: string;
}

/** Due events whose intent has no earlier pending event (an intent's events go out in written order). */
function dueWhere(eb: ExpressionBuilder<Database, 'events'>, now: number): Expression<SqlBool> {
  return eb.and([
    eb('events.status', '=', 'pending'),
    eb('events.next_attempt_at', '<=', now),
    eb('events.locked_until', '<=', now),
    eb.not(
      eb.exists(
        eb
          .selectFrom('events as earlier')
          .select(sql<number>`1`.as('one'))
          .whereRef('earlier.intent_id', '=', 'events.intent_id')
          .where('earlier.status', '=', 'pending')
          .whereRef('earlier.seq', '<', 'events.seq'),
      ),
    ),
  ]);
}

function fenceWhere(eb: ExpressionBuilder<Database, 'events'>, holder: string, leaseNow: Expression<number> | number): Expression<SqlBool> {
  return eb.exists(eb.selectFrom('worker_lease').select(sql<number>`1`.as('one')).where('worker_lease.name', '=', 'workers').where('worker_lease.holder', '=', holder).where('worker_lease.expires_at', '>', leaseNow));
}

/**
 * Takes delivery leases on up to `limit` due events and returns them (as they were before
 * the claim). PostgreSQL: one UPDATE over rows picked FOR UPDATE SKIP LOCKED, so dispatchers
 * on several nodes never wait on, nor take, each other's rows. SQLite (one writer at a time):
 * a read, then one compare-and-set update per event.
 */
export async function claimDueEvents(db: Db, r: ClaimRequest): Promise<EventsTable[]> {
  if (r.limit <= 0) return [];
  const exclude = [...r.exclude];
  if (isPostgres(db)) {
    const picked = db
      .selectFrom('events')
      .select('events.id')
      .where((eb) => dueWhere(eb, r.now))
      .$if(exclude.length > 0, (q) => q.where('events.id', 'not in', exclude))
      .orderBy('events.next_attempt_at')
      .orderBy('events.seq')
      .limit(r.limit)
      .forUpdate()
      .skipLocked();
    const rows = await db
      .updateTable('events')
      .set({ locked_until: r.lockedUntil, locked_by: r.holder })
      .where('events.id', 'in', picked)
      .$if(r.fence !== undefined, (q) => q.where((eb) => fenceWhere(eb, r.fence!, databaseNowMs)))
      .returningAll()
      .execute();
    // As read before the claim: callers never look at the lease columns.
    return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.seq ?? 0) - (b.seq ?? 0));
  }
  const due = await db
    .selectFrom('events')
    .selectAll()
    .where((eb) => dueWhere(eb, r.now))
    .orderBy('next_attempt_at')
    .limit(r.limit + exclude.length)
    .execute();
  const claimed: EventsTable[] = [];
  for (const ev of due) {
    if (claimed.length >= r.limit || r.exclude.has(ev.id)) continue;
    const res = await db
      .updateTable('events')
      .set({ locked_until: r.lockedUntil, locked_by: r.holder })
      .where('id', '=', ev.id)
      .where('status', '=', 'pending')
      .where('locked_until', '<=', r.now)
      .$if(r.fence !== undefined, (q) => q.where((eb) => fenceWhere(eb, r.fence!, r.now)))
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 1) claimed.push(ev);
  }
  return claimed;
}

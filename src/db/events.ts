import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { databaseNowMs } from './clock.ts';
import { isPostgres, writeTx, type Db, type Tx } from './open.ts';
import type { Database, EventsTable } from './schema.ts';

/*
 * The one owner of the outbox: the `events` table (and each event's `webhook_attempts`).
 * Its state machine: enqueue (pending) → claim (leased) → finish (delivered | retry | failed),
 * or skip, postpone, release; replay puts delivered/failed events back to pending.
 * Nobody else writes these tables' SQL.
 */

export interface NewEvent {
  id: string;
  merchantId: string;
  intentId: string | null;
  type: string;
  /** Fixed at enqueue: every retry sends the same bytes. */
  body: string;
  now: number;
}

/**
 * Inserts a pending event inside the state change's transaction. The counter row it bumps
 * numbers events in commit order (the feed's `seq`).
 */
export async function enqueueEvent(tx: Tx, event: NewEvent): Promise<void> {
  const { value: seq } = await tx
    .updateTable('sequences')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', 'events')
    .returning('value')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('events')
    .values({ id: event.id, merchant_id: event.merchantId, intent_id: event.intentId, type: event.type, body: event.body, status: 'pending', attempts: 0, retry_base: 0, next_attempt_at: event.now, locked_until: 0, last_error: null, created_at: event.now, delivered_at: null, seq })
    .execute();
}

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
export async function claimDueEvents(db: Db, request: ClaimRequest): Promise<EventsTable[]> {
  if (request.limit <= 0) return [];
  const exclude = [...request.exclude];
  if (isPostgres(db)) {
    const picked = db
      .selectFrom('events')
      .select('events.id')
      .where((eb) => dueWhere(eb, request.now))
      .$if(exclude.length > 0, (q) => q.where('events.id', 'not in', exclude))
      .orderBy('events.next_attempt_at')
      .orderBy('events.seq')
      .limit(request.limit)
      .forUpdate()
      .skipLocked();
    const rows = await db
      .updateTable('events')
      .set({ locked_until: request.lockedUntil, locked_by: request.holder })
      .where('events.id', 'in', picked)
      .$if(request.fence !== undefined, (q) => q.where((eb) => fenceWhere(eb, request.fence!, databaseNowMs)))
      .returningAll()
      .execute();
    // As read before the claim: callers never look at the lease columns.
    return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.seq ?? 0) - (b.seq ?? 0));
  }
  const due = await db
    .selectFrom('events')
    .selectAll()
    .where((eb) => dueWhere(eb, request.now))
    .orderBy('next_attempt_at')
    .limit(request.limit + exclude.length)
    .execute();
  const claimed: EventsTable[] = [];
  for (const ev of due) {
    if (claimed.length >= request.limit || request.exclude.has(ev.id)) continue;
    const res = await db
      .updateTable('events')
      .set({ locked_until: request.lockedUntil, locked_by: request.holder })
      .where('id', '=', ev.id)
      .where('status', '=', 'pending')
      .where('locked_until', '<=', request.now)
      .$if(request.fence !== undefined, (q) => q.where((eb) => fenceWhere(eb, request.fence!, request.now)))
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 1) claimed.push(ev);
  }
  return claimed;
}

/** Leases one pending event now (an operator's `webhooks test`), unless a dispatcher holds it. */
export async function claimEvent(db: Db, eventId: string, lease: { now: number; lockedUntil: number; holder: string | null }): Promise<EventsTable | undefined> {
  const ev = await db.selectFrom('events').selectAll().where('id', '=', eventId).where('status', '=', 'pending').executeTakeFirst();
  if (!ev) return undefined;
  const res = await db.updateTable('events').set({ locked_until: lease.lockedUntil, locked_by: lease.holder }).where('id', '=', eventId).where('locked_until', '<=', lease.now).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1 ? ev : undefined;
}

/** One delivery attempt as kept in webhook_attempts. */
export interface AttemptRecord {
  attempt: number;
  /** As kept: without its query string. Empty when there was no URL to try. */
  url: string;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

export type Outcome = { kind: 'delivered'; at: number } | { kind: 'retry'; atMs: number } | { kind: 'failed'; lastError: string };

/**
 * Records the attempt and moves the event on, in one transaction. Only if the event is still
 * as claimed: a replay may have reset it (attempts back to 0) meanwhile; then the attempt stays
 * on record, the replay's round goes ahead, and only the lease is let go.
 */
export async function finishEvent(db: Db, ev: Pick<EventsTable, 'id' | 'attempts'>, a: AttemptRecord, outcome: Outcome): Promise<void> {
  await writeTx(db, async (tx) => {
    await tx
      .insertInto('webhook_attempts')
      .values({ event_id: ev.id, attempt: a.attempt, url: a.url, started_at: a.startedAt, duration_ms: a.durationMs, status_code: a.statusCode, error: a.error })
      .execute();
    const base = { attempts: a.attempt, locked_until: 0, last_error: a.error };
    const update =
      outcome.kind === 'delivered'
        ? { ...base, status: 'delivered' as const, delivered_at: outcome.at }
        : outcome.kind === 'retry'
          ? { ...base, next_attempt_at: outcome.atMs }
          : { ...base, status: 'failed' as const, last_error: outcome.lastError };
    const mine = await tx.updateTable('events').set(update).where('id', '=', ev.id).where('status', '=', 'pending').where('attempts', '=', ev.attempts).executeTakeFirst();
    if (Number(mine.numUpdatedRows) === 0) await tx.updateTable('events').set({ locked_until: 0 }).where('id', '=', ev.id).where('status', '=', 'pending').execute();
  });
}

/** Nothing to send to (the merchant has no webhook URL): the event is set aside, not failed. */
export async function skipEvent(db: Db, eventId: string, reason: string): Promise<void> {
  await db.updateTable('events').set({ status: 'skipped', last_error: reason, locked_until: 0 }).where('id', '=', eventId).execute();
}

/** Leaves a pending event leased until `until` (ms): tried again then, no attempt counted. */
export async function postponeEvent(db: Db, eventId: string, until: number): Promise<void> {
  await db.updateTable('events').set({ locked_until: until }).where('id', '=', eventId).where('status', '=', 'pending').execute();
}

/** Frees the delivery leases taken under a worker-lease holder known to be dead; returns how many. */
export async function releaseLeasesOf(db: Db, holder: string): Promise<number> {
  const res = await db.updateTable('events').set({ locked_until: 0, locked_by: null }).where('status', '=', 'pending').where('locked_by', '=', holder).where('locked_until', '>', 0).executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Puts events back to pending for another round (same id, fresh retry schedule); returns their
 * ids, or undefined when the one event asked for does not exist. `attempts` keeps counting
 * (attempt numbers stay unique in the log); retry_base restarts the schedule. The lease is
 * left alone: an event in flight finishes its attempt before the replay's starts.
 */
export async function replayEvents(db: Db, target: { eventId: string } | { failed: true }, now: number): Promise<string[] | undefined> {
  let q = db.updateTable('events').set((eb) => ({ status: 'pending', retry_base: eb.ref('attempts'), next_attempt_at: now }));
  if ('eventId' in target) {
    const e = await db.selectFrom('events').select('id').where('id', '=', target.eventId).executeTakeFirst();
    if (!e) return undefined;
    q = q.where('id', '=', target.eventId);
  } else {
    q = q.where('status', '=', 'failed');
  }
  const rows = await q.returning('id').execute();
  return rows.map((r) => r.id);
}

// Reads.

export const listEvents = (db: Db, filter: { status?: EventsTable['status']; limit: number }): Promise<EventsTable[]> =>
  db
    .selectFrom('events')
    .selectAll()
    .orderBy('created_at', 'desc')
    .limit(filter.limit)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .execute();

export const getEvent = (db: Db, eventId: string): Promise<EventsTable | undefined> => db.selectFrom('events').selectAll().where('id', '=', eventId).executeTakeFirst();

/** The body of an intent's newest payment.success: what its settlement told the merchant. */
export const settlementEventBody = async (db: Db, intentId: string): Promise<string | undefined> =>
  (await db.selectFrom('events').select('body').where('intent_id', '=', intentId).where('type', '=', 'payment.success').orderBy('seq', 'desc').limit(1).executeTakeFirst())?.body;

export const eventsOfIntent = (db: Db, intentId: string): Promise<EventsTable[]> => db.selectFrom('events').selectAll().where('intent_id', '=', intentId).orderBy('created_at').execute();

export const attemptsOf = (db: Db, eventIds: string[]) => (eventIds.length === 0 ? Promise.resolve([]) : db.selectFrom('webhook_attempts').selectAll().where('event_id', 'in', eventIds).orderBy('id').execute());

/** A merchant's events of `types` written after `afterSeq`, in written order, at most `limit`. */
export const feedEvents = (db: Db, merchantId: string, afterSeq: number, types: readonly string[], limit: number) =>
  db.selectFrom('events').select(['id', 'type', 'body', 'created_at', 'seq']).where('merchant_id', '=', merchantId).where('seq', '>', afterSeq).where('type', 'in', [...types]).orderBy('seq').limit(limit).execute();

/** The feed position (`seq`) of one of the merchant's events. */
export const feedPositionOf = async (db: Db, merchantId: string, eventId: string): Promise<number | undefined> =>
  (await db.selectFrom('events').select('seq').where('id', '=', eventId).where('merchant_id', '=', merchantId).executeTakeFirst())?.seq ?? undefined;

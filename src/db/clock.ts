import { sql } from 'kysely';
import type { Clock, Logger } from '../domain/ports.ts';
import { isPostgres, type Db } from './open.ts';

/** The database server's clock in epoch ms (PostgreSQL): one clock for every node. */
export const DATABASE_NOW_SQL = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
export const databaseNowMs = sql<number>`${sql.raw(DATABASE_NOW_SQL)}`;

/** The database's clock (PostgreSQL), or undefined where the caller's injected clock rules (SQLite: one machine). */
export async function databaseNow(db: Db): Promise<number | undefined> {
  if (!isPostgres(db)) return undefined;
  const row = await db.selectNoFrom(databaseNowMs.as('now')).executeTakeFirstOrThrow();
  return Number(row.now);
}

/** Offsets that differ by less than this are measurement noise (a round trip), not a clock step, ms. */
const RESYNC_STEP_MS = 1000;
/** A node this far off the database's clock is told so in the log, ms. */
export const SKEW_WARN_MS = 5000;

/**
 * The clock every part of one node uses. On PostgreSQL several nodes stamp rows (created_at,
 * expires_at) that the lease and matching compare: they must share one clock, the database's.
 * The node's own clock is corrected by its offset to the database's, measured at start
 * (half a round trip of error) and again by `sync()` (a stepped node clock is followed).
 * On SQLite (one machine) the injected clock is used as it is.
 */
export async function nodeClock(db: Db, base: Clock, log: Logger): Promise<{ clock: Clock; sync(): Promise<void> }> {
  if (!isPostgres(db)) return { clock: base, sync: async () => {} };
  let offset = 0;
  async function sync(): Promise<void> {
    const before = base.now();
    const dbNow = await databaseNow(db);
    const after = base.now();
    if (dbNow === undefined) return;
    const measured = dbNow - Math.round((before + after) / 2);
    if (Math.abs(measured - offset) < RESYNC_STEP_MS) return;
    if (Math.abs(measured) > SKEW_WARN_MS) log.warn("this node's clock is off the database's; payd stamps and compares times by the database's clock", { offset_ms: measured });
    offset = measured;
  }
  await sync();
  return { clock: { now: () => base.now() + offset }, sync };
}

import { nodeClock } from '../db/clock.ts';
import { migrate, type Db } from '../db/open.ts';
import { describeTarget, openStore, type StoreTarget } from '../db/store.ts';
import { openWakeups } from '../db/wakeups.ts';
import type { Clock, Logger } from '../domain/ports.ts';
import { describeError } from '../domain/errors.ts';

/** How often a PostgreSQL node measures its clock against the database's again, ms. */
const CLOCK_SYNC_MS = 60_000;

/**
 * The database, migrated, with the clock every process stamps by and the change wake-ups;
 * each part's release is pushed onto `cleanups` as it opens (released in reverse order).
 */
export async function openAppStore(options: { target: StoreTarget; clock: Clock; databaseClock?: boolean; log: Logger }, cleanups: Array<() => Promise<void> | void>) {
  const { target, log } = options;
  const opened = openStore(target);
  const db: Db = opened.db;
  // Ends the PostgreSQL pool / closes the SQLite connection.
  cleanups.push(() => db.destroy());
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  // On PostgreSQL the database's clock, so every node stamps and compares times alike.
  let synced: Awaited<ReturnType<typeof nodeClock>>;
  try {
    synced = options.databaseClock === false ? { clock: options.clock, sync: async () => {} } : await nodeClock(db, options.clock, log.child({ component: 'clock' }));
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const resync = setInterval(() => void synced.sync().catch((err) => log.warn('could not read the database clock', { error: describeError(err) })), CLOCK_SYNC_MS);
  resync.unref();
  cleanups.push(() => clearInterval(resync));
  const store = opened.intentStore();
  cleanups.push(() => store.close());
  // Changes seen by every process on this database (LISTEN/NOTIFY on PostgreSQL). Closed
  // before the database, so publishes still under way go out first.
  const wakeups = await openWakeups({ db, postgresUrl: target.kind === 'postgres' ? target.url : null, log: log.child({ component: 'wake-ups' }) });
  cleanups.push(() => wakeups.close());
  /** The SQLite file, or where the PostgreSQL database is (no credentials). */
  return { db, clock: synced.clock, store, wakeups, dbFile: describeTarget(target) };
}

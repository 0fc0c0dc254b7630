import type SQLite from 'better-sqlite3';
import type { Db } from './open.ts';
import { sql } from 'kysely';

/**
 * A unit of work run inside the shared transaction. Jobs run one after another; an async
 * job's awaits must only wait on this connection's (synchronous) statements, never on I/O, or
 * it holds the whole group. A job may run twice (its group rolled back and run again when
 * another job failed): its only effects are its statements on this connection.
 */
export type GroupJob<T> = (sqlite: SQLite.Database) => T | Promise<T>;

export interface GroupCommit {
  /** Runs `job` in the next group transaction; resolves only after that transaction has committed (fsync done). */
  run<T>(job: GroupJob<T>): Promise<T>;
}

interface Pending {
  job: GroupJob<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * Durable group commit. Writes that arrive together (same turn of the event loop, or while
 * the previous group is committing) share one BEGIN IMMEDIATE … COMMIT, so one fsync under
 * synchronous=FULL serves them all. A job that throws is rolled back alone and only its caller
 * sees the error (its group runs again with a SAVEPOINT per job, see `isolate`). Every caller
 * is answered after the COMMIT returned; if the COMMIT itself fails, every job of the group fails.
 *
 * The group holds Kysely's connection (db.connection()) while it runs, so it never
 * interleaves with a Kysely transaction on the same SQLite connection.
 */
export function createGroupCommit(db: Db, sqlite: SQLite.Database, options: { maxBatch?: number } = {}): GroupCommit {
  const maxBatch = options.maxBatch ?? 256;
  let queue: Pending[] = [];
  let scheduled = false;
  const savepoint = sqlite.prepare('SAVEPOINT job');
  const release = sqlite.prepare('RELEASE job');
  const rollbackTo = sqlite.prepare('ROLLBACK TO job');

  type Result = { ok: true; value: unknown } | { ok: false; error: unknown };
  /**
   * Runs the batch's jobs in the open transaction. `isolated`: each under its own savepoint, so
   * one that throws is rolled back alone. Without: null as soon as one throws (the caller then
   * rolls the whole transaction back). Savepoints are not free: SQLite copies every page a job
   * first touches into a sub-journal, which past 64 KiB (one create's ~16 pages: the intents
   * row in eleven indexes, the reservation) spills to a temporary file, a write() per page,
   * 60–120 µs of server CPU per create (bench/probes/ab.ts, tmpfs and disk).
   */
  const runJobs = async (batch: Pending[], isolated: boolean): Promise<Result[] | null> => {
    const results: Result[] = [];
    for (const p of batch) {
      if (!isolated) {
        try {
          results.push({ ok: true, value: await p.job(sqlite) });
        } catch {
          return null;
        }
        continue;
      }
      savepoint.run();
      try {
        results.push({ ok: true, value: await p.job(sqlite) });
        release.run();
      } catch (error) {
        rollbackTo.run();
        release.run();
        results.push({ ok: false, error });
      }
    }
    return results;
  };
  // Groups run without savepoints while no job fails (jobs rarely do: a create's conflicts and
  // refusals are found before it writes). A group where one fails is rolled back whole and run
  // again with a savepoint per job, so every job still succeeds or fails alone (jobs may run more
  // than once, see GroupJob); the groups after it keep the savepoints until one has no failure,
  // so a stream of failing jobs costs no more than with savepoints always.
  let isolate = false;

  const flush = async (): Promise<void> => {
    scheduled = false;
    const batch = queue.splice(0, maxBatch);
    if (queue.length > 0) schedule();
    if (batch.length === 0) return;
    let results: Result[];
    try {
      // BEGIN and COMMIT go through Kysely's pinned connection: the driver then knows the
      // connection is in a transaction, and waits for another process's write lock asynchronously.
      results = await db.connection().execute(async (conn) => {
        const attempt = async (isolated: boolean): Promise<Result[] | null> => {
          await sql`begin immediate`.execute(conn);
          try {
            const r = await runJobs(batch, isolated);
            if (r) await sql`commit`.execute(conn);
            // (An I/O error may have ended the transaction already.)
            else if (sqlite.inTransaction) await sql`rollback`.execute(conn);
            return r;
          } catch (err) {
            if (sqlite.inTransaction) await sql`rollback`.execute(conn);
            throw err;
          }
        };
        return (!isolate && (await attempt(false))) || (await attempt(true))!;
      });
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    isolate = results.some((r) => !r.ok);
    batch.forEach((p, i) => {
      const r = results[i];
      if (r.ok) p.resolve(r.value);
      else p.reject(r.error);
    });
  };

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    // After the I/O callbacks of this turn: requests read in the same turn join one group.
    setImmediate(() => void flush());
  }

  return {
    run<T>(job: GroupJob<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
        schedule();
      });
    },
  };
}

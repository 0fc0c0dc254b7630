import type SQLite from 'better-sqlite3';
import type { Db } from './open.ts';
import { sql } from 'kysely';

/**
 * A unit of work run inside the shared transaction, under its own savepoint. Jobs run one
 * after another; an async job's awaits must only wait on this connection's (synchronous)
 * statements, never on I/O, or it holds the whole group.
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
 * synchronous=FULL serves them all. Each job runs under its own SAVEPOINT: a job that throws
 * is rolled back alone and only its caller sees the error. Every caller is answered after
 * the COMMIT returned; if the COMMIT itself fails, every job of the group fails.
 *
 * The group holds Kysely's connection (db.connection()) while it runs, so it never
 * interleaves with a Kysely transaction on the same SQLite connection.
 */
export function createGroupCommit(db: Db, sqlite: SQLite.Database, o: { maxBatch?: number } = {}): GroupCommit {
  const maxBatch = o.maxBatch ?? 256;
  let queue: Pending[] = [];
  let scheduled = false;
  const savepoint = sqlite.prepare('SAVEPOINT job');
  const release = sqlite.prepare('RELEASE job');
  const rollbackTo = sqlite.prepare('ROLLBACK TO job');

  const flush = async (): Promise<void> => {
    scheduled = false;
    const batch = queue.splice(0, maxBatch);
    if (queue.length > 0) schedule();
    if (batch.length === 0) return;
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      // BEGIN and COMMIT go through Kysely's pinned connection: the driver then knows the
      // connection is in a transaction, and waits for another process's write lock asynchronously.
      await db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          for (const p of batch) {
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
          await sql`commit`.execute(conn);
        } catch (err) {
          if (sqlite.inTransaction) await sql`rollback`.execute(conn);
          throw err;
        }
      });
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
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

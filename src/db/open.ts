import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresIntrospector, sql, type Migration, type MigrationProvider } from 'kysely';
import { busyRetryDialect, LOCK_WAIT_MS, type StatementSource } from './sqlite-driver.ts';
import * as m001 from './migrations/001_initial.ts';
import * as m005 from './migrations/005_operations.ts';
import * as m002upi from './migrations/002_upi_alerts.ts';
import * as m004 from './migrations/004_worker_lease.ts';
import * as m006 from './migrations/006_api.ts';
import * as m007 from './migrations/007_mailbox_oauth.ts';
import * as m008 from './migrations/008_golive.ts';
import * as m009 from './migrations/009_mail_inspection.ts';
import * as pg001 from './migrations-pg/001_initial.ts';
import * as pg009 from './migrations-pg/009_mail_inspection.ts';
import * as m016 from './migrations/016_payments_by_method.ts';
import * as pg016 from './migrations-pg/016_payments_by_method.ts';
import * as m024 from './migrations/024_console.ts';
import * as pg024 from './migrations-pg/024_console.ts';
import * as m025 from './migrations/025_notifications.ts';
import * as pg025 from './migrations-pg/025_notifications.ts';
import * as m026 from './migrations/026_pricing.ts';
import * as pg026 from './migrations-pg/026_pricing.ts';
import * as m022 from './migrations/022_held_payments.ts';
import * as pg022 from './migrations-pg/022_held_payments.ts';
import * as m027 from './migrations/027_exact_amounts.ts';
import * as pg027 from './migrations-pg/027_exact_amounts.ts';
import * as m028 from './migrations/028_open_intents.ts';
import * as pg028 from './migrations-pg/028_open_intents.ts';
import * as m029 from './migrations/029_payment_links.ts';
import * as pg029 from './migrations-pg/029_payment_links.ts';
import * as m030 from './migrations/030_lean_intent_indexes.ts';
import * as pg030 from './migrations-pg/030_lean_intent_indexes.ts';
import { isDatabaseGone, isRetryableConflict } from './pg-errors.ts';
import { rerunning } from './rerun.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
declare const inTransaction: unique symbol;
/**
 * A handle inside a write transaction (see writeTx). Branded, so a plain `Db` does not
 * type-check where "inside this transaction" is meant (e.g. the outbox's enqueue).
 */
export type Tx = Kysely<Database> & { readonly [inTransaction]: true };

/** Migrations are listed here, not discovered on disk, so the set is fixed at build time. */
const migrations: Record<string, Migration> = { '001_initial': m001, '002_upi_alerts': m002upi, '004_worker_lease': m004, '005_operations': m005, '006_api': m006, '007_mailbox_oauth': m007, '008_golive': m008, '009_mail_inspection': m009, '016_payments_by_method': m016, '022_held_payments': m022, '024_console': m024, '025_notifications': m025, '026_pricing': m026, '027_exact_amounts': m027, '028_open_intents': m028, '029_payment_links': m029, '030_lean_intent_indexes': m030 };
const provider: MigrationProvider = { getMigrations: async () => migrations };
/** PostgreSQL starts from SQLite's end state (its own frozen files: types and DDL differ). */
const pgMigrations: Record<string, Migration> = { '001_initial': pg001, '009_mail_inspection': pg009, '016_payments_by_method': pg016, '022_held_payments': pg022, '024_console': pg024, '025_notifications': pg025, '026_pricing': pg026, '027_exact_amounts': pg027, '028_open_intents': pg028, '029_payment_links': pg029, '030_lean_intent_indexes': pg030 };
const pgProvider: MigrationProvider = { getMigrations: async () => pgMigrations };

/**
 * Thrown inside writeTx when a row read earlier in the transaction changed before the write
 * (another node committed in between; PostgreSQL's READ COMMITTED allows it, SQLite's write
 * lock does not): the transaction is rolled back and run again, and then reads the new state.
 */
export class TxConflict extends Error {
  constructor(what: string) {
    super(`${what} changed during the transaction`);
    this.name = 'TxConflict';
  }
}

/** Answers per handle, remembered: Kysely builds a new introspector on every `introspection` read. */
const dialectSeen = new WeakMap<object, boolean>();

/** Whether `db` runs on PostgreSQL (dialect differences stay inside src/db/). */
export function isPostgres(db: Db): boolean {
  let pg = dialectSeen.get(db);
  if (pg === undefined) {
    pg = db.introspection instanceof PostgresIntrospector;
    dialectSeen.set(db, pg);
  }
  return pg;
}

/** Opens (creating if needed) the SQLite database in WAL mode. Nothing connects until this is called. */
export function openDatabase(file: string): Db {
  return kyselyOver(openSqlite(file));
}

/** The SQLite connection itself, with payd's settings (the API's hot path uses it directly: db/intent-store.ts). */
export function openSqlite(file: string): SQLite.Database {
  if (file !== ':memory:') {
    // Owner only, with or without systemd's StateDirectoryMode/UMask: directories this creates
    // are 0700, a new database file 0600 (SQLite gives its -wal and -shm files the same mode).
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    closeSync(openSync(file, 'a', 0o600));
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a settlement that was acknowledged survives a power cut.
  sqlite.pragma('synchronous = FULL');
  // No wait inside SQLite: it would block the event loop. Lock waits are async retries (sqlite-driver.ts).
  sqlite.pragma('busy_timeout = 0');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/** Kysely over an open connection (closing the Kysely instance closes the connection). */
export function kyselyOver(sqlite: SQLite.Database, options: { lockWaitMs?: number } = {}): Db {
  return new Kysely<Database>({ dialect: busyRetryDialect(withStatementCache(sqlite), { lockWaitMs: options.lockWaitMs ?? LOCK_WAIT_MS }) });
}

/**
 * Reuses one prepared statement per SQL text: preparing again on every query cost more
 * than running it. Safe because each statement runs to completion synchronously.
 */
function withStatementCache(sqlite: SQLite.Database): StatementSource {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let stmt = cache.get(text);
      if (!stmt) {
        if (cache.size >= 500) cache.clear(); // bounded: dynamic IN-lists make distinct texts
        stmt = sqlite.prepare(text);
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}

/** Every migration not yet run; `upTo`: only as far as that one (a test of an upgrade starts from an older schema). */
export async function migrate(db: Db, options: { upTo?: string } = {}): Promise<string[]> {
  // Migrations are written in parallel under reserved names and land in any order: a database
  // that already ran 007 must still accept 006 when it arrives, so order is not enforced.
  // On PostgreSQL the migrator takes a lock, so nodes starting together migrate once.
  const migrator = new Migrator({ db, provider: isPostgres(db) ? pgProvider : provider, allowUnorderedMigrations: true });
  const { error, results } = await (options.upTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(options.upTo));
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Runs `fn` in a write transaction (on PostgreSQL `fn` may run again after a deadlock, so it
 * must have no effects outside `tx`). SQLite: taken with BEGIN IMMEDIATE, so that a second
 * process (the CLI beside the daemon) waits for the lock (asynchronously, see
 * sqlite-driver.ts) instead of failing on a read-to-write upgrade. PostgreSQL: a READ
 * COMMITTED transaction; writers that race rely on row locks, conditional updates and
 * unique indexes, never on one global write lock.
 */
export async function writeTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (isPostgres(db)) {
    // Writers lock rows in different orders (an intent, then the events counter), so PostgreSQL
    // may abort one to break a deadlock: run it again, with backoff, for a bounded time (rerun.ts).
    return pgTransaction(db, fn, (err) => err instanceof TxConflict || isRetryableConflict(err));
  }
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      // The connection is pinned, so queries through it are inside the transaction.
      const result = await fn(conn as unknown as Tx);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}

/** How long a transaction cut off by the database going away is run again, ms (a restart takes about a second). */
const GONE_RERUN_MS = 2000;

/**
 * A PostgreSQL transaction, run again (with backoff, rerun.ts) on the errors `again` accepts,
 * and when the database went away before COMMIT was sent: nothing of it was committed, so
 * running it again is safe, for a short while (then BUSY stands: 503 with Retry-After). A
 * connection lost during COMMIT is not run again: it may have committed.
 */
export function pgTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, again: (err: unknown) => boolean): Promise<T> {
  const started = Date.now();
  let committing = false;
  return rerunning(
    () => {
      committing = false;
      return db.transaction().execute(async (tx) => {
        const result = await fn(tx as unknown as Tx);
        committing = true;
        return result;
      });
    },
    (err) => again(err) || (!committing && isDatabaseGone(err) && Date.now() - started < GONE_RERUN_MS),
  );
}

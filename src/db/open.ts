import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type Migration, type MigrationProvider, type SqliteDatabase } from 'kysely';
import * as m001 from './migrations/001_initial.ts';
import * as m002upi from './migrations/002_upi_alerts.ts';
import * as m004 from './migrations/004_worker_lease.ts';
import * as m006 from './migrations/006_api.ts';
import * as m007 from './migrations/007_mailbox_oauth.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
/** A connection pinned inside a transaction (see writeTx). */
export type Tx = Kysely<Database>;

/** Migrations are listed here, not discovered on disk, so the set is fixed at build time. */
const migrations: Record<string, Migration> = { '001_initial': m001, '002_upi_alerts': m002upi, '004_worker_lease': m004, '006_api': m006, '007_mailbox_oauth': m007 };
const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Opens (creating if needed) the SQLite database in WAL mode. Nothing connects until this is called. */
export function openDatabase(file: string): Db {
  return kyselyOver(openSqlite(file));
}

/** The SQLite connection itself, with payd's settings (the API's hot path uses it directly: db/intent-store.ts). */
export function openSqlite(file: string): SQLite.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a settlement that was acknowledged survives a power cut.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/** Kysely over an open connection (closing the Kysely instance closes the connection). */
export function kyselyOver(sqlite: SQLite.Database): Db {
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}

/**
 * Reuses one prepared statement per SQL text: preparing again on every query cost more
 * than running it. Safe because Kysely's SQLite driver runs one query at a time.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
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

export async function migrate(db: Db): Promise<string[]> {
  // Migrations are written in parallel under reserved names and land in any order: a database
  // that already ran 007 must still accept 006 when it arrives, so order is not enforced.
  const { error, results } = await new Migrator({ db, provider, allowUnorderedMigrations: true }).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Runs `fn` in a write transaction taken with BEGIN IMMEDIATE, so that a second
 * process (the CLI beside the daemon) waits on busy_timeout instead of failing
 * on a read-to-write upgrade.
 */
export async function writeTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
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

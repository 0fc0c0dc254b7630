import { closeSync, fsyncSync, openSync } from 'node:fs';
import SQLite from 'better-sqlite3';

/**
 * `VACUUM INTO` a new file: one read transaction of the live database, so the copy is the state
 * of one moment however busy the daemon is (WAL readers never wait for writers), and the copy is
 * an ordinary single file (rollback journal, no -wal to forget). `target` must not exist: it is
 * created 0600 first, which SQLite keeps (a secret hash and sealed webhook secrets are in it).
 */
export function snapshotSqlite(source: string, target: string): void {
  closeSync(openSync(target, 'wx', 0o600));
  // Not read-only: a read-only connection cannot open a WAL database whose -shm is gone (no daemon running).
  const db = new SQLite(source, { fileMustExist: true });
  try {
    // A CLI process may wait (in SQLite, blocking) for a moment of checkpointing by the daemon.
    db.pragma('busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
  const fd = openSync(target, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface SqliteCheck {
  /** `PRAGMA integrity_check`'s answer: "ok", or what is broken. */
  integrity: string;
  /** Rows per table (SQLite's and Kysely's own bookkeeping left out). */
  rows: Record<string, number>;
  /** The master key fingerprint the database stores (null: no key used yet). */
  masterKeyFingerprint: string | null;
}

/** Opens a database file read-only and checks it: integrity, rows per table, which key it needs. */
export function checkSqlite(file: string): SqliteCheck {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const problems = db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>;
    const integrity = problems.map((p) => p.integrity_check).join('; ');
    const rows: Record<string, number> = {};
    const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_migration%' order by name").pluck().all() as string[];
    // Names come from sqlite_master itself; quoted as identifiers.
    for (const t of tables) rows[t] = db.prepare(`select count(*) from "${t.replaceAll('"', '""')}"`).pluck().get() as number;
    const hasSettings = tables.includes('settings');
    const fp = hasSettings ? (db.prepare("select value from settings where key = 'master_key_fingerprint'").pluck().get() as string | undefined) : undefined;
    return { integrity, rows, masterKeyFingerprint: fp ?? null };
  } finally {
    db.close();
  }
}

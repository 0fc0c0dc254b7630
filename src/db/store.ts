import { createIntentStore, type IntentStore } from './intent-store.ts';
import { createPostgresIntentStore } from './intent-store-pg.ts';
import { kyselyOver, openSqlite, type Db } from './open.ts';
import { describePostgresUrl, openPostgres } from './postgres.ts';

/** Where the data lives: a SQLite file (the default) or a PostgreSQL database shared by nodes. */
export type StoreTarget =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; pool: number; statementTimeoutMs: number };

/** Where `target` is, for logs and messages (a URL without user or password). */
export function describeTarget(target: StoreTarget): string {
  return target.kind === 'sqlite' ? target.file : describePostgresUrl(target.url);
}

/** A Kysely handle on the target; nothing connects until the first query. */
export function openDb(target: StoreTarget): Db {
  return target.kind === 'sqlite' ? kyselyOver(openSqlite(target.file)) : openPostgres(target);
}

export interface OpenStore {
  db: Db;
  /** Opens the intent hot path over `db` (call once, after migrating). */
  intentStore(): IntentStore;
}

/** The database handle and, bound to it, the store-specific intent hot path. */
export function openStore(target: StoreTarget): OpenStore {
  if (target.kind === 'postgres') {
    const db = openPostgres(target);
    return { db, intentStore: () => createPostgresIntentStore(db) };
  }
  const sqlite = openSqlite(target.file);
  const db = kyselyOver(sqlite);
  return { db, intentStore: () => createIntentStore(db, sqlite) };
}

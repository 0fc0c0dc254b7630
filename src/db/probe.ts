import { existsSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openPostgres } from './postgres.ts';
import type { StoreTarget } from './store.ts';

export type RecordKind = 'merchant' | 'intent' | 'webhook event';

const TABLES: Array<['merchants' | 'intents' | 'events', RecordKind]> = [
  ['merchants', 'merchant'],
  ['intents', 'intent'],
  ['events', 'webhook event'],
];

/**
 * Which kind of record `id` is in the database `file`, read-only and without creating or
 * migrating anything; null when the file or the record does not exist. Used for the CLI's
 * "…exists in the sandbox: add --sandbox" hints.
 */
export function findRecord(file: string, id: string): RecordKind | null {
  if (!existsSync(file)) return null;
  let db: SQLite.Database | undefined;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
    for (const [table, kind] of TABLES) {
      const found = db.prepare(`SELECT 1 FROM ${table} WHERE id = ? COLLATE NOCASE`).get(id);
      if (found) return kind;
    }
    return null;
  } catch {
    // A file that is not (yet) a payd database holds nothing to hint at.
    return null;
  } finally {
    db?.close();
  }
}

/** findRecord for either store; PostgreSQL is asked over one short-lived connection. */
export async function findRecordIn(target: StoreTarget, id: string): Promise<RecordKind | null> {
  if (target.kind === 'sqlite') return findRecord(target.file, id);
  const db = openPostgres({ ...target, pool: 1 });
  try {
    for (const [table, kind] of TABLES) {
      const found = await db.selectFrom(table).select('id').where(sql`lower(id)`, '=', id.toLowerCase()).executeTakeFirst();
      if (found) return kind;
    }
    return null;
  } catch {
    // Unreachable or not migrated: nothing to hint at.
    return null;
  } finally {
    await db.destroy();
  }
}

import { existsSync } from 'node:fs';
import SQLite from 'better-sqlite3';

export type RecordKind = 'merchant' | 'intent' | 'webhook event';

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
    const tables: [string, RecordKind][] = [
      ['merchants', 'merchant'],
      ['intents', 'intent'],
      ['events', 'webhook event'],
    ];
    for (const [table, kind] of tables) {
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

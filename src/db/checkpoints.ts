import type { Db, Tx } from './open.ts';

/**
 * The checkpoints table's one owner: where each source (and the notification feed) got to, as
 * JSON under its key; saved in the caller's transaction, so progress commits with what it covers.
 */
export async function saveCheckpoint(db: Db | Tx, key: string, value: unknown, now: number): Promise<void> {
  const value_json = JSON.stringify(value);
  await db
    .insertInto('checkpoints')
    .values({ key, value_json, updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value_json, updated_at: now }))
    .execute();
}

export async function loadCheckpoint<T>(db: Db | Tx, key: string): Promise<T | undefined> {
  const row = await db.selectFrom('checkpoints').select('value_json').where('key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.value_json) as T) : undefined;
}

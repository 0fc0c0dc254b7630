import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Merchant API round: cancellation, the per-merchant intent list, and the event feed's written order.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('intents').addColumn('canceled_at', 'integer').execute();
  // The list endpoint walks one merchant's intents newest first: cost independent of other merchants.
  await db.schema.createIndex('intents_merchant_created').on('intents').columns(['merchant_id', 'created_at', 'id']).execute();

  // Events get a gap-free number in the order they were written. A counter row (not an
  // autoincrement) works on every store, and its row lock makes number order = commit order.
  await db.schema
    .createTable('sequences')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('events').addColumn('seq', 'integer').execute();
  const rows = await db.selectFrom('events').select('id').orderBy('created_at').orderBy('id').execute();
  let n = 0;
  for (const r of rows) await db.updateTable('events').set({ seq: ++n }).where('id', '=', r.id).execute();
  await db.insertInto('sequences').values({ name: 'events', value: n }).execute();
  await db.schema.createIndex('events_merchant_seq').unique().on('events').columns(['merchant_id', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_merchant_seq').ifExists().execute();
  await db.schema.alterTable('events').dropColumn('seq').execute();
  await db.schema.dropTable('sequences').ifExists().execute();
  await db.schema.dropIndex('intents_merchant_created').ifExists().execute();
  await db.schema.alterTable('intents').dropColumn('canceled_at').execute();
}

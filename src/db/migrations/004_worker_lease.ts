import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// The worker lease: one row per lease name ('workers'); the holder renews expires_at (ms)
// every few seconds. Plain columns and compare-and-set updates, so PostgreSQL can use it as is.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('worker_lease')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull()) // random id of the holding process
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('acquired_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute();
  // Which process holds an event's delivery lease, so a new leader frees only a dead holder's.
  await db.schema.alterTable('events').addColumn('locked_by', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('locked_by').execute();
  await db.schema.dropTable('worker_lease').execute();
}

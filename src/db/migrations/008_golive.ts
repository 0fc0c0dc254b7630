import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // Client-secret rotation with a grace period: the previous secret's hash keeps
  // verifying until secret_prev_until (ms since the epoch).
  await db.schema.alterTable('merchants').addColumn('secret_prev_hash', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('secret_prev_until', 'integer').execute();
  // Attempts made before the last replay: attempt numbers keep counting across replays
  // while each replay starts a fresh retry schedule at attempts - retry_base.
  await db.schema.alterTable('events').addColumn('retry_base', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('retry_base').execute();
  await db.schema.alterTable('merchants').dropColumn('secret_prev_until').execute();
  await db.schema.alterTable('merchants').dropColumn('secret_prev_hash').execute();
}

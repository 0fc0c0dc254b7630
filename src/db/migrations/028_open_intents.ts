import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Open intents (the customer picks the method): the methods offered, and the choices made so
// far with their reserved pay amounts and locked quotes (JSON, at most a few per intent). Both
// null on an intent created with a currency. Until the first choice an open intent's method is
// '' (the column predates open intents and stays NOT NULL; db/intent-rows.ts reads it as none).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE intents ADD COLUMN offered_methods text`.execute(db);
  await sql`ALTER TABLE intents ADD COLUMN choices text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE intents DROP COLUMN choices`.execute(db);
  await sql`ALTER TABLE intents DROP COLUMN offered_methods`.execute(db);
}

import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// SQLite's 028 with PostgreSQL types: an open intent's offered methods and its choices (JSON).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE intents ADD COLUMN offered_methods text`.execute(db);
  await sql`ALTER TABLE intents ADD COLUMN choices text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE intents DROP COLUMN IF EXISTS choices`.execute(db);
  await sql`ALTER TABLE intents DROP COLUMN IF EXISTS offered_methods`.execute(db);
}

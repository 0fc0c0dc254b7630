import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Held payments: see the SQLite migration of the same name.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments ADD COLUMN IF NOT EXISTS tx_hash text`.execute(db);
  await sql`ALTER TABLE intents ADD COLUMN IF NOT EXISTS payment_count integer NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS payments_intent ON payments (intent_id)`.execute(db);
  await sql`UPDATE intents SET payment_count = (SELECT count(*) FROM payments p WHERE p.intent_id = intents.id AND p.status = 'matched')
            WHERE payment_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS payments_intent`.execute(db);
  await sql`ALTER TABLE intents DROP COLUMN IF EXISTS payment_count`.execute(db);
  await sql`ALTER TABLE payments DROP COLUMN IF EXISTS tx_hash`.execute(db);
}

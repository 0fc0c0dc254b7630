import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// UPI silence (methods/upi/silence.ts) reads a method's newest mailbox payments, newest first.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS payments_method_source_observed ON payments (method, source, observed_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS payments_method_source_observed`.execute(db);
}

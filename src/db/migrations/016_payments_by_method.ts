import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// UPI silence (methods/upi/silence.ts) reads a method's newest mailbox payments, newest first.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_method_source_observed').ifNotExists().on('payments').columns(['method', 'source', 'observed_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_method_source_observed').ifExists().execute();
}

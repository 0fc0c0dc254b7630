import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Held payments: a payment row may now be `held` or `refunded` besides matched/unmatched
// (status is free text, no constraint to change); `tx_hash` is the chain transaction the merchant
// sees (a TRON row key is "<txid>:<from>:<value>"); `intents.payment_count` counts the payments
// shown on the intent, so a fetch reads the payments table only for an intent that has some.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('tx_hash', 'text').execute();
  await db.schema.alterTable('intents').addColumn('payment_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('payments_intent').ifNotExists().on('payments').columns(['intent_id']).execute();
  // Payments an earlier version already credited to an intent are shown on it.
  await sql`UPDATE intents SET payment_count = (SELECT count(*) FROM payments p WHERE p.intent_id = intents.id AND p.status = 'matched')
            WHERE payment_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_intent').ifExists().execute();
  await db.schema.alterTable('intents').dropColumn('payment_count').execute();
  await db.schema.alterTable('payments').dropColumn('tx_hash').execute();
}

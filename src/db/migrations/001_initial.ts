import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Times are integer milliseconds since the epoch; money is integer minor units.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (c) => c.primaryKey()) // client_id (UUID v4)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull()) // keyed SHA-256, never the secret
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret_sealed', 'text', (c) => c.notNull()) // AES-256-GCM with the master key
    .addColumn('webhook_secret_prev_sealed', 'text')
    .addColumn('webhook_secret_prev_until', 'integer')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active')) // active | revoked
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('intents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'integer', (c) => c.notNull())
    .addColumn('pay_amount_minor', 'integer', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('reference', 'text') // Solana Pay reference key
    .addColumn('payment_uri', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | settled | expired
    .addColumn('return_url', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('transaction_hash', 'text')
    .addColumn('verified_at', 'integer')
    .addColumn('payment_id', 'text')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('intents_merchant_order').unique().on('intents').columns(['merchant_id', 'order_id']).execute();
  await db.schema.createIndex('intents_reference').unique().on('intents').column('reference').where(sql.ref('reference'), 'is not', null).execute();
  await db.schema.createIndex('intents_match').on('intents').columns(['method', 'receiver', 'pay_amount_minor', 'status']).execute();
  await db.schema.createIndex('intents_status_expiry').on('intents').columns(['status', 'expires_at']).execute();
  await db.schema.createIndex('intents_created').on('intents').column('created_at').execute();

  // One row per (method, receiver, pay_amount): held by an intent until reserved_until.
  await db.schema
    .createTable('amount_reservations')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('pay_amount_minor', 'integer', (c) => c.notNull())
    .addColumn('intent_id', 'text', (c) => c.notNull())
    .addColumn('reserved_until', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('amount_reservations_pk', ['method', 'receiver', 'pay_amount_minor'])
    .execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('tx_ref', 'text', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'integer', (c) => c.notNull())
    .addColumn('references_json', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'integer', (c) => c.notNull())
    .addColumn('observed_at', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // matched | unmatched
    .addColumn('reason', 'text')
    .addColumn('intent_id', 'text')
    .addColumn('evidence_json', 'text')
    .addColumn('note', 'text')
    .execute();
  await db.schema.createIndex('payments_method_tx').unique().on('payments').columns(['method', 'tx_ref']).execute();
  await db.schema.createIndex('payments_status').on('payments').columns(['status', 'observed_at']).execute();

  await db.schema
    .createTable('rejections')
    .addColumn('ref', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('detail_json', 'text')
    .addColumn('raw', 'blob')
    .addColumn('observed_at', 'integer', (c) => c.notNull())
    .execute();

  // The webhook outbox: written in the same transaction as the state change it reports.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey()) // the webhook-id header
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull()) // exact bytes sent on every attempt
    .addColumn('status', 'text', (c) => c.notNull()) // pending | delivered | failed | skipped
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('delivered_at', 'integer')
    .execute();
  await db.schema.createIndex('events_due').on('events').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('events_intent').on('events').column('intent_id').execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_event').on('webhook_attempts').column('event_id').execute();

  await db.schema
    .createTable('checkpoints')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('details_json', 'text')
    .execute();

  // The sandbox's simulated upstream: `payd sandbox pay` writes here, sandbox sources read it.
  await db.schema
    .createTable('sandbox_transfers')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'integer', (c) => c.notNull())
    .addColumn('tx_ref', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['sandbox_transfers', 'audit_log', 'checkpoints', 'webhook_attempts', 'events', 'rejections', 'payments', 'amount_reservations', 'intents', 'merchants']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}

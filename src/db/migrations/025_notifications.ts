import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Notifications to people (Telegram, e-mail): a durable queue delivered at least once by the
// worker leader, and the one-use tokens behind the bot's inline buttons.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channel', 'text', (c) => c.notNull()) // telegram | email
    .addColumn('target', 'text', (c) => c.notNull()) // a chat id; "to" for e-mail
    .addColumn('dedup_key', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('buttons_json', 'text')
    .addColumn('status', 'text', (c) => c.notNull()) // pending | sent | failed
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('sent_at', 'integer')
    .execute();
  // One message per (channel, target, what it is about): a re-fed event or a repeated alert is no second message.
  await db.schema.createIndex('notifications_dedup').unique().on('notifications').columns(['channel', 'target', 'dedup_key']).execute();
  await db.schema.createIndex('notifications_due').on('notifications').columns(['status', 'next_attempt_at']).execute();
  // The feed reads events after its cursor every second, across merchants (events_merchant_seq leads with the merchant).
  await db.schema.createIndex('events_seq').on('events').column('seq').execute();
  await db.schema
    .createTable('telegram_actions')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull()) // accept | refunded
    .addColumn('intent_id', 'text', (c) => c.notNull())
    .addColumn('transaction_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('used_at', 'integer')
    .addColumn('used_by', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('telegram_actions').execute();
  await db.schema.dropIndex('events_seq').execute();
  await db.schema.dropTable('notifications').execute();
}

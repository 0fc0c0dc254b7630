import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// The operator console (src/console/): invites, passkeys, server-side sessions, WebAuthn
// challenges; and the indexes its lists page through on a database of a million intents.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('console_invites')
    .addColumn('token_hash', 'text', (c) => c.primaryKey()) // sha256 of the link's token
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('used_at', 'integer')
    .execute();
  await db.schema
    .createTable('console_passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey()) // the credential id, base64url
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull()) // COSE key, base64url
    .addColumn('counter', 'integer', (c) => c.notNull())
    .addColumn('transports', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('last_used_at', 'integer')
    .addColumn('revoked_at', 'integer')
    .execute();
  await db.schema
    .createTable('console_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey()) // public: what `payd console revoke` takes
    .addColumn('token_hash', 'text', (c) => c.notNull().unique()) // sha256 of the cookie's token
    .addColumn('passkey_id', 'text', (c) => c.notNull())
    .addColumn('csrf', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('last_seen_at', 'integer', (c) => c.notNull())
    .addColumn('revoked_at', 'integer')
    .execute();
  await db.schema
    .createTable('console_challenges')
    .addColumn('challenge', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull()) // register | login
    .addColumn('invite_hash', 'text')
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('intents_created_id').on('intents').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('intents_status_created').on('intents').columns(['status', 'created_at', 'id']).execute();
  await db.schema.createIndex('intents_order').on('intents').column('order_id').execute();
  await db.schema.createIndex('intents_status_verified').on('intents').columns(['status', 'verified_at']).execute();
  await db.schema.createIndex('rejections_observed').on('rejections').columns(['observed_at', 'ref']).execute();
  await db.schema.createIndex('payments_status_observed_id').on('payments').columns(['status', 'observed_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const i of ['payments_status_observed_id', 'rejections_observed', 'intents_status_verified', 'intents_order', 'intents_status_created', 'intents_created_id']) await db.schema.dropIndex(i).ifExists().execute();
  for (const t of ['console_challenges', 'console_sessions', 'console_passkeys', 'console_invites']) await db.schema.dropTable(t).ifExists().execute();
}

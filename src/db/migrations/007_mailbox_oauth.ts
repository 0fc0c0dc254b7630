import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// A mail provider may rotate an IMAP OAuth refresh token; the newest one is kept here, sealed
// (AES-256-GCM) under the master key like webhook secrets, so a restart keeps using it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mailbox_oauth_tokens')
    .addColumn('key', 'text', (c) => c.primaryKey()) // mailbox user + token endpoint + client id
    .addColumn('refresh_token_sealed', 'text', (c) => c.notNull())
    // Keyed hash of the refresh token in the config this one replaced: a new token in the config wins.
    .addColumn('configured_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mailbox_oauth_tokens').execute();
}

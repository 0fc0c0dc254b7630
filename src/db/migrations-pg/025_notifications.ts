import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// SQLite's 025: the notification queue and the bot's one-use button tokens.
const statements = [
  `CREATE TABLE notifications (
     id text PRIMARY KEY, channel text NOT NULL, target text NOT NULL, dedup_key text NOT NULL, kind text NOT NULL,
     text text NOT NULL, buttons_json text, status text NOT NULL, attempts integer NOT NULL, next_attempt_at bigint NOT NULL,
     locked_until bigint NOT NULL, last_error text, created_at bigint NOT NULL, sent_at bigint)`,
  `CREATE UNIQUE INDEX notifications_dedup ON notifications (channel, target, dedup_key)`,
  `CREATE INDEX notifications_due ON notifications (status, next_attempt_at)`,
  `CREATE INDEX events_seq ON events (seq)`,
  `CREATE TABLE telegram_actions (
     token text PRIMARY KEY, chat_id text NOT NULL, action text NOT NULL, intent_id text NOT NULL, transaction_hash text NOT NULL,
     created_at bigint NOT NULL, expires_at bigint NOT NULL, used_at bigint, used_by text)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const s of statements) await sql.raw(s).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP TABLE IF EXISTS telegram_actions').execute(db);
  await sql.raw('DROP TABLE IF EXISTS notifications').execute(db);
  await sql.raw('DROP INDEX IF EXISTS events_seq').execute(db);
}

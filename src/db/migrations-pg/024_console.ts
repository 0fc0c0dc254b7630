import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// SQLite's 024: the operator console's invites, passkeys, sessions and challenges, and the
// indexes its lists page through.
const statements = [
  `CREATE TABLE console_invites (token_hash text PRIMARY KEY, name text NOT NULL, created_at bigint NOT NULL, expires_at bigint NOT NULL, used_at bigint)`,
  `CREATE TABLE console_passkeys (id text PRIMARY KEY, name text NOT NULL, public_key text NOT NULL, counter bigint NOT NULL, transports text,
     created_at bigint NOT NULL, last_used_at bigint, revoked_at bigint)`,
  `CREATE TABLE console_sessions (id text PRIMARY KEY, token_hash text NOT NULL UNIQUE, passkey_id text NOT NULL, csrf text NOT NULL, address text,
     created_at bigint NOT NULL, last_seen_at bigint NOT NULL, revoked_at bigint)`,
  `CREATE TABLE console_challenges (challenge text PRIMARY KEY, purpose text NOT NULL, invite_hash text, expires_at bigint NOT NULL)`,
  `CREATE INDEX intents_created_id ON intents (created_at, id)`,
  `CREATE INDEX intents_status_created ON intents (status, created_at, id)`,
  `CREATE INDEX intents_order ON intents (order_id)`,
  `CREATE INDEX intents_status_verified ON intents (status, verified_at)`,
  `CREATE INDEX rejections_observed ON rejections (observed_at, ref)`,
  `CREATE INDEX payments_status_observed_id ON payments (status, observed_at, id)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const s of statements) await sql.raw(s).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const i of ['payments_status_observed_id', 'rejections_observed', 'intents_status_verified', 'intents_order', 'intents_status_created', 'intents_created_id']) await sql.raw(`DROP INDEX IF EXISTS ${i}`).execute(db);
  for (const t of ['console_challenges', 'console_sessions', 'console_passkeys', 'console_invites']) await sql.raw(`DROP TABLE IF EXISTS ${t}`).execute(db);
}

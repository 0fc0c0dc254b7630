import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Every create writes one entry in each index of intents, so an index no query needs is paid on
// every create. intents_created (created_at) is a prefix of intents_created_id (created_at, id),
// which serves each of its queries; an intent gets a link_id or a verified_at only when a customer
// chooses on a link or pays, and every query on those columns compares them, so those two indexes
// hold only the intents that have one (and a link's intents, newest first, need no sort by id).
const statements = [
  'DROP INDEX IF EXISTS intents_created',
  'DROP INDEX IF EXISTS intents_link',
  'CREATE INDEX intents_link ON intents (link_id, created_at, id) WHERE link_id IS NOT NULL',
  'DROP INDEX IF EXISTS intents_status_verified',
  'CREATE INDEX intents_status_verified ON intents (status, verified_at) WHERE verified_at IS NOT NULL',
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const s of statements) await sql.raw(s).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const s of [
    'DROP INDEX IF EXISTS intents_link',
    'CREATE INDEX intents_link ON intents (link_id, created_at)',
    'DROP INDEX IF EXISTS intents_status_verified',
    'CREATE INDEX intents_status_verified ON intents (status, verified_at)',
    'CREATE INDEX intents_created ON intents (created_at)',
  ])
    await sql.raw(s).execute(db);
}

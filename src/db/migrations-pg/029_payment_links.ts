import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// SQLite's 029 with PostgreSQL types. Payment links: a merchant's reusable page (a fixed price or
// an amount the customer enters) whose intents are created only when a customer chooses a method.
const statements = [
  `CREATE TABLE payment_links (
     id text PRIMARY KEY, slug text NOT NULL, merchant_id text NOT NULL, title text NOT NULL,
     price_amount text, price_currency text NOT NULL, min_amount text, max_amount text, methods_json text,
     single_use integer NOT NULL DEFAULT 0, expires_at bigint, active integer NOT NULL DEFAULT 1,
     orders integer NOT NULL DEFAULT 0, created_at bigint NOT NULL, updated_at bigint NOT NULL)`,
  'CREATE UNIQUE INDEX payment_links_slug ON payment_links (slug)',
  'CREATE INDEX payment_links_merchant ON payment_links (merchant_id, created_at)',
  'ALTER TABLE intents ADD COLUMN link_id text',
  'CREATE INDEX intents_link ON intents (link_id, created_at)',
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const s of statements) await sql.raw(s).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP INDEX IF EXISTS intents_link').execute(db);
  await sql.raw('ALTER TABLE intents DROP COLUMN IF EXISTS link_id').execute(db);
  await sql.raw('DROP TABLE IF EXISTS payment_links').execute(db);
}

import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Fiat pricing: the price and the locked quote on each intent, and the rate cache
// the worker leader fills (one row per pair and source) for every process to read.
const statements = [
  'ALTER TABLE intents ADD COLUMN price_amount text',
  'ALTER TABLE intents ADD COLUMN price_currency text',
  'ALTER TABLE intents ADD COLUMN quote_rate text',
  'ALTER TABLE intents ADD COLUMN quote_source text',
  'ALTER TABLE intents ADD COLUMN quoted_at integer',
  'ALTER TABLE intents ADD COLUMN quote_valid_until integer',
  `CREATE TABLE rates (
     pair text NOT NULL, source text NOT NULL, rate text, fetched_at integer, source_at integer, outlier integer NOT NULL DEFAULT 0,
     checked_at integer NOT NULL, error text, failures integer NOT NULL DEFAULT 0,
     PRIMARY KEY (pair, source))`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const s of statements) await sql.raw(s).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP TABLE IF EXISTS rates').execute(db);
  for (const c of ['quote_valid_until', 'quoted_at', 'quote_source', 'quote_rate', 'price_currency', 'price_amount']) await sql.raw(`ALTER TABLE intents DROP COLUMN ${c}`).execute(db);
}

import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// SQLite's 027 with PostgreSQL types. Amounts of any precision: every amount column becomes
// NUMERIC(40,0) (an 18-decimal token overflows BIGINT above 9.2 tokens). PostgreSQL changes the
// type in place and rebuilds the indexes that cover the column.
const columns = [
  ['intents', 'amount_minor'],
  ['intents', 'pay_amount_minor'],
  ['amount_reservations', 'pay_amount_minor'],
  ['payments', 'amount_minor'],
  ['sandbox_transfers', 'amount_minor'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, column] of columns) await sql.raw(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE numeric(40,0)`).execute(db);
}

/** Back to BIGINT: amounts beyond its range fail the cast and keep the migration from running. */
export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, column] of columns) await sql.raw(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE bigint`).execute(db);
}

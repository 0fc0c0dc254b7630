import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Amounts of any precision: every amount column becomes decimal text of a fixed 40 digits,
// zero-padded (an 18-decimal token overflows SQLite's 64-bit integers above 9.2 tokens, and a
// NUMERIC column would turn such values into floats). Fixed width keeps text order equal to
// number order for the range reads and the indexes. SQLite cannot change a column's type, so
// each table is rebuilt: created anew, copied, dropped, renamed, its indexes created again.
// `A` stands for the amount columns' type: text going up, integer coming down.
const tables: { name: string; create: (a: string) => string; amounts: string[]; indexes: string[] }[] = [
  {
    name: 'intents',
    create: (a) =>
      `CREATE TABLE "intents_next" ("id" text primary key, "merchant_id" text not null references "merchants" ("id"), "order_id" text not null, "method" text not null,
       "amount_minor" ${a} not null, "pay_amount_minor" ${a} not null, "receiver" text not null, "reference" text, "payment_uri" text not null, "status" text not null,
       "return_url" text, "created_at" integer not null, "expires_at" integer not null, "transaction_hash" text, "verified_at" integer, "payment_id" text,
       "updated_at" integer not null, "canceled_at" integer, "payment_count" integer default 0 not null, price_amount text, price_currency text, quote_rate text,
       quote_source text, quoted_at integer, quote_valid_until integer)`,
    amounts: ['amount_minor', 'pay_amount_minor'],
    indexes: [
      'CREATE UNIQUE INDEX "intents_merchant_order" on "intents" ("merchant_id", "order_id")',
      'CREATE UNIQUE INDEX "intents_reference" on "intents" ("reference") where "reference" is not null',
      'CREATE INDEX "intents_match" on "intents" ("method", "receiver", "pay_amount_minor", "status")',
      'CREATE INDEX "intents_status_expiry" on "intents" ("status", "expires_at")',
      'CREATE INDEX "intents_created" on "intents" ("created_at")',
      'CREATE INDEX "intents_merchant_created" on "intents" ("merchant_id", "created_at", "id")',
      'CREATE INDEX "intents_created_id" on "intents" ("created_at", "id")',
      'CREATE INDEX "intents_status_created" on "intents" ("status", "created_at", "id")',
      'CREATE INDEX "intents_order" on "intents" ("order_id")',
      'CREATE INDEX "intents_status_verified" on "intents" ("status", "verified_at")',
    ],
  },
  {
    name: 'amount_reservations',
    create: (a) =>
      `CREATE TABLE "amount_reservations_next" ("method" text not null, "receiver" text not null, "pay_amount_minor" ${a} not null, "intent_id" text not null,
       "reserved_until" integer not null, constraint "amount_reservations_pk" primary key ("method", "receiver", "pay_amount_minor"))`,
    amounts: ['pay_amount_minor'],
    indexes: [],
  },
  {
    name: 'payments',
    create: (a) =>
      `CREATE TABLE "payments_next" ("id" text primary key, "method" text not null, "tx_ref" text not null, "receiver" text not null, "amount_minor" ${a} not null,
       "references_json" text, "source" text not null, "occurred_at" integer not null, "observed_at" integer not null, "status" text not null, "reason" text,
       "intent_id" text, "evidence_json" text, "note" text, "tx_hash" text)`,
    amounts: ['amount_minor'],
    indexes: [
      'CREATE UNIQUE INDEX "payments_method_tx" on "payments" ("method", "tx_ref")',
      'CREATE INDEX "payments_status" on "payments" ("status", "observed_at")',
      'CREATE INDEX "payments_method_source_observed" on "payments" ("method", "source", "observed_at")',
      'CREATE INDEX "payments_intent" on "payments" ("intent_id")',
      'CREATE INDEX "payments_status_observed_id" on "payments" ("status", "observed_at", "id")',
    ],
  },
  {
    name: 'sandbox_transfers',
    create: (a) =>
      `CREATE TABLE "sandbox_transfers_next" ("seq" integer primary key autoincrement, "method" text not null, "receiver" text not null, "amount_minor" ${a} not null,
       "tx_ref" text not null, "reference" text, "created_at" integer not null)`,
    amounts: ['amount_minor'],
    indexes: [],
  },
];

async function rebuild(db: Kysely<any>, amountType: string, convert: (column: string) => string): Promise<void> {
  for (const t of tables) {
    const columns = (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${t.name})`.execute(db)).rows.map((r) => r.name);
    const values = columns.map((c) => (t.amounts.includes(c) ? convert(c) : `"${c}"`));
    await sql.raw(t.create(amountType)).execute(db);
    await sql.raw(`INSERT INTO "${t.name}_next" (${columns.map((c) => `"${c}"`).join(', ')}) SELECT ${values.join(', ')} FROM "${t.name}"`).execute(db);
    await sql.raw(`DROP TABLE "${t.name}"`).execute(db);
    await sql.raw(`ALTER TABLE "${t.name}_next" RENAME TO "${t.name}"`).execute(db);
    for (const index of t.indexes) await sql.raw(index).execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await rebuild(db, 'text', (c) => `printf('%040d', "${c}")`);
}

/** Back to integers: only for a database that never held an amount beyond 64 bits (the cast would clip it). */
export async function down(db: Kysely<any>): Promise<void> {
  await rebuild(db, 'integer', (c) => `CAST("${c}" AS INTEGER)`);
}

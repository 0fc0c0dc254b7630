// PostgreSQL as the store: `payd migrate` (a real bin/payd process) creates the schema with
// BIGINT times and amounts and the unique indexes the code relies on; a second run is a no-op;
// the credentials in the URL never appear in the output.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { migrate } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { payd, runPayd, workdir } from '../helpers/cli.ts';
import { testStore, TEST_MASTER_KEY } from '../helpers/stores.ts';

const store = testStore('postgres');

test('payd migrate on PostgreSQL: schema with NUMERIC money and BIGINT ms, the unique indexes, idempotent, no credentials printed', async (t) => {
  const url = new URL(await store.database());
  url.password = 'not-checked-by-trust-auth';
  const dir = workdir(t, { server: { masterKey: TEST_MASTER_KEY }, database: { url: url.toString() } });
  const where = `postgres://${url.host}${url.pathname}`;

  const first = await runPayd(['migrate'], dir);
  assert.equal(first.status, 0, first.stderr);
  assert.equal(first.stdout.trim(), `applied 001_initial, 009_mail_inspection, 016_payments_by_method, 022_held_payments, 024_console, 025_notifications, 026_pricing, 027_exact_amounts, 028_open_intents, 029_payment_links, 030_lean_intent_indexes to ${where}`);
  const again = await runPayd(['migrate'], dir);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout.trim(), `${where} is up to date`);
  assert.doesNotMatch(first.stdout + first.stderr + again.stdout + again.stderr, /not-checked-by-trust-auth|payd@/);

  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  t.after(() => c.end());
  const type = async (table: string, column: string) =>
    (await c.query('SELECT data_type FROM information_schema.columns WHERE table_name = $1 AND column_name = $2', [table, column])).rows[0]?.data_type;
  for (const [table, column] of [['intents', 'created_at'], ['amount_reservations', 'reserved_until'], ['events', 'seq'], ['worker_lease', 'expires_at']]) {
    assert.equal(await type(table, column), 'bigint', `${table}.${column}`);
  }
  // Amounts of any precision (18-decimal tokens pass BIGINT at 9.2 tokens).
  for (const [table, column] of [['intents', 'amount_minor'], ['intents', 'pay_amount_minor'], ['payments', 'amount_minor'], ['amount_reservations', 'pay_amount_minor'], ['sandbox_transfers', 'amount_minor']]) {
    assert.equal(await type(table, column), 'numeric', `${table}.${column}`);
  }
  assert.equal(await type('rejections', 'raw'), 'bytea');
  assert.equal(await type('upi_parked_mail', 'raw'), 'bytea');
  const indexes = new Map((await c.query('SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()')).rows.map((r) => [r.indexname, r.indexdef]));
  assert.match(indexes.get('intents_merchant_order'), /CREATE UNIQUE INDEX .* \(merchant_id, order_id\)$/);
  assert.match(indexes.get('payments_method_tx'), /CREATE UNIQUE INDEX .* \(method, tx_ref\)$/);
  assert.match(indexes.get('amount_reservations_pk'), /CREATE UNIQUE INDEX .* \(method, receiver, pay_amount_minor\)$/);
  assert.match(indexes.get('intents_reference'), /CREATE UNIQUE INDEX .* \(reference\) WHERE \(reference IS NOT NULL\)$/);
  assert.match(indexes.get('events_merchant_seq'), /CREATE UNIQUE INDEX .* \(merchant_id, seq\)$/);
  assert.deepEqual((await c.query("SELECT value FROM sequences WHERE name = 'events'")).rows, [{ value: '0' }]);
});

test('a config naming both stores, or PostgreSQL without a master key, is refused before anything connects', async (t) => {
  const both = workdir(t, { server: { masterKey: 'k' }, database: { file: 'x.sqlite', url: 'postgres://127.0.0.1:1/payd' } });
  const r1 = await runPayd(['migrate'], both);
  assert.equal(r1.status, 2, r1.stderr);
  assert.match(r1.stderr, /database: set either database\.file \(SQLite\) or database\.url \(PostgreSQL\), not both/);
  const keyless = workdir(t, { database: { url: 'postgres://127.0.0.1:1/payd' } });
  const r2 = await runPayd(['migrate'], keyless);
  assert.equal(r2.status, 2, r2.stderr);
  assert.match(r2.stderr, /server\.masterKey: is required with database\.url/);
  const badUrl = workdir(t, { server: { masterKey: 'k' }, database: { url: 'mysql://127.0.0.1/payd' } });
  const r3 = await runPayd(['migrate'], badUrl);
  assert.equal(r3.status, 2, r3.stderr);
  assert.match(r3.stderr, /database\.url: expected a postgres:\/\/ URL/);
});

test('nodes migrating one PostgreSQL at the same moment (every unit runs payd migrate at start): one applies, none fails', async () => {
  const url = await store.database();
  const dbs = Array.from({ length: 4 }, () => openPostgres({ url, pool: 2, statementTimeoutMs: 5000 }));
  try {
    const results = await Promise.all(dbs.map((db) => migrate(db)));
    assert.deepEqual(results.flat(), ['001_initial', '009_mail_inspection', '016_payments_by_method', '022_held_payments', '024_console', '025_notifications', '026_pricing', '027_exact_amounts', '028_open_intents', '029_payment_links', '030_lean_intent_indexes']);
    const applied = await dbs[0]!.selectFrom('kysely_migration' as any).select('name').execute();
    assert.deepEqual(applied, [{ name: '001_initial' }, { name: '009_mail_inspection' }, { name: '016_payments_by_method' }, { name: '022_held_payments' }, { name: '024_console' }, { name: '025_notifications' }, { name: '026_pricing' }, { name: '027_exact_amounts' }, { name: '028_open_intents' }, { name: '029_payment_links' }, { name: '030_lean_intent_indexes' }]);
  } finally {
    await Promise.all(dbs.map((db) => db.destroy()));
  }
});

test('CLI on a PostgreSQL shop: commands work without any local database file; an id of the other mode is hinted at in both directions', async (t) => {
  const url = await store.database();
  const dir = workdir(t, { server: { masterKey: TEST_MASTER_KEY }, database: { url } });
  const where = `postgres://${new URL(url).host}${new URL(url).pathname}`;
  // No local file to find: a read command on the live (PostgreSQL) side just answers.
  const empty = await payd(['merchant', 'list', '--json'], { cwd: dir });
  assert.equal(empty.code, 0, empty.err);
  assert.deepEqual(empty.json(), []);
  const live = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const sandbox = (await payd(['--sandbox', 'merchant', 'create', '--name', 'Dev', '--json'], { cwd: dir })).json();
  const wrongSide = await payd(['--sandbox', 'merchant', 'rotate-secret', live.client_id], { cwd: dir });
  assert.equal(wrongSide.code, 1);
  assert.ok(wrongSide.err.includes(`merchant ${live.client_id} exists in the live database (${where}): drop --sandbox`), wrongSide.err);
  const otherWay = await payd(['merchant', 'revoke', sandbox.client_id, '--yes'], { cwd: dir });
  assert.equal(otherWay.code, 1);
  assert.match(otherWay.err, /exists in the sandbox database \(.*payd-sandbox\.sqlite\): add --sandbox/);
  assert.ok(existsSync(join(dir, 'data', 'payd-sandbox.sqlite')), 'the sandbox stays SQLite');
  assert.equal(existsSync(join(dir, 'data', 'payd.sqlite')), false, 'no live SQLite file is created');
});

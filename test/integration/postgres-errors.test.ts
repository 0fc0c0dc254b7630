// PostgreSQL trouble reaches clients the way SQLite's busy lock does: 503 BUSY with
// Retry-After, never a stack or a hang. A lock held too long (lock_timeout) and a database
// that went away both answer that way; payd itself keeps running and recovers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { startPayd } from '../helpers/payd.ts';
import { startPostgres } from '../helpers/postgres.ts';
import { TEST_MASTER_KEY } from '../helpers/stores.ts';

test('a row lock held past the lock timeout answers 503 BUSY with Retry-After; once released, creates go through', async (t) => {
  const cluster = await startPostgres();
  t.after(() => cluster.stop());
  const p = await startPayd({ config: { database: { url: cluster.url }, server: { masterKey: TEST_MASTER_KEY } } });
  t.after(() => p.close());
  const m = await p.merchant();
  const create = (order: string) => p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: order }, headers: m.headers });
  assert.equal((await create('before')).status, 200);

  // Another session (a long migration, an operator's manual transaction) holds the intents table.
  const other = new pg.Client({ connectionString: cluster.url });
  await other.connect();
  // Ended in the test; should it fail first, the cluster's stop ends this session, which is no error of the test's.
  other.on('error', () => {});
  t.after(() => other.end().catch(() => {}));
  await other.query('BEGIN');
  await other.query('LOCK TABLE intents IN ACCESS EXCLUSIVE MODE');
  const started = Date.now();
  const blocked = await create('during');
  assert.equal(blocked.status, 503, blocked.text);
  assert.equal(blocked.body.code, 'BUSY');
  assert.equal(blocked.headers.get('retry-after'), '1');
  assert.doesNotMatch(blocked.text, /at .*\.ts:|lock timeout|55P03/, 'no stack or driver detail reaches the client');
  assert.ok(Date.now() - started < 15_000, 'it gives up after the lock timeout, not never');
  await other.query('ROLLBACK');
  await other.end();
  assert.equal((await create('after')).status, 200);
});

test('the database going away answers 503 BUSY (the API process stays up); /healthz stays 200', async (t) => {
  const cluster = await startPostgres();
  let stopped = false;
  t.after(() => (stopped ? undefined : cluster.stop()));
  const p = await startPayd({ config: { database: { url: cluster.url }, server: { masterKey: TEST_MASTER_KEY } } });
  t.after(() => p.close());
  const m = await p.merchant();
  const created = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: 'a' }, headers: m.headers });
  assert.equal(created.status, 200);
  await cluster.stop();
  stopped = true;
  const fetched = await p.api('GET', `/api/v1/intents/${created.body.intent_id}`, { headers: m.headers });
  assert.equal(fetched.status, 503, fetched.text);
  assert.equal(fetched.body.code, 'BUSY');
  assert.equal(fetched.headers.get('retry-after'), '1');
  const again = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: 'b' }, headers: m.headers });
  assert.equal(again.status, 503, again.text);
  assert.equal((await fetch(`${p.url}/healthz`)).status, 200);
});

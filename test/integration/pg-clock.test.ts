// On PostgreSQL every node stamps and compares times by the database's clock,
// so a node whose own clock is 2 minutes fast neither dates intents in the future nor calls a
// prompt payment `too_early`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startPayd } from '../helpers/payd.ts';
import { testStore } from '../helpers/stores.ts';

const store = testStore('postgres');
const FAST_MS = 120_000;

test('PostgreSQL: a node 2 min fast stamps intents by the database clock and a prompt payment settles', async (t) => {
  const fast = await startPayd({ store, clock: { now: () => Date.now() + FAST_MS }, databaseClock: true });
  t.after(() => fast.close());
  const m = await fast.merchant();
  const before = Date.now();
  const r = await fast.api('POST', '/api/v1/intents/create-payment', { body: { amount: 250, currency: 'UPI', order_id: 'fast-node' }, headers: m.headers });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const created = Date.parse(r.body.created_at);
  assert.ok(Math.abs(created - before) < 5_000, `created_at ${r.body.created_at} is ${created - before} ms off the database's clock`);
  assert.ok(Date.parse(r.body.expires_at) - created > 0);

  // Paid at once, by the bank's (the real) clock.
  const now = Date.now();
  const outcome = await fast.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(Number(r.body.pay_amount) * 100)), txRef: '499999999901', occurredAt: now, observedAt: now, source: 'imap' });
  assert.equal(outcome.kind, 'settled', JSON.stringify(outcome));
});

test('PostgreSQL: a node with a test-driven clock keeps it when it asks to (databaseClock: false)', async (t) => {
  const T0 = Date.parse('2026-01-01T00:00:00.000Z');
  const p = await startPayd({ store, clock: { now: () => T0 } });
  t.after(() => p.close());
  const m = await p.merchant();
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1, currency: 'UPI', order_id: 'test-clock' }, headers: m.headers });
  assert.equal(r.body.created_at, new Date(T0).toISOString());
});

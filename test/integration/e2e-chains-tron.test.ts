/**
 * TRON through the real app (real source, real ledger, real SQLite) against the fake
 * TronGrid serving what TronGrid serves (REAL-UPSTREAMS.md §1): several Transfer rows
 * sharing one transaction id, transfers indexed late, error bodies without Retry-After.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CUSTOMER, MERCHANT, startFakeTronGrid, STRANGER, txid, type FakeTronGrid } from '../fakes/trongrid.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

async function grid(t: TestContext): Promise<FakeTronGrid> {
  const g = await startFakeTronGrid();
  t.after(() => g.close());
  return g;
}

async function payd(t: TestContext, tron: Record<string, unknown>, o: Parameters<typeof startPayd>[0] = {}) {
  const p = await startPayd({ workers: true, sources: 'configured', ...o, config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: { address: MERCHANT, pollSeconds: 0.1, ...tron } } } });
  t.after(() => p.close());
  return p;
}

const statusOf = async (p: PaydHarness, id: string) => (await p.app.intents.get(id)).status;
const create = async (p: PaydHarness, headers: Record<string, string>, body: object) => (await p.api('POST', '/api/v1/intents/create-payment', { body, headers })).body;

test('TRON: several Transfer rows in one transaction are each a payment; both intents settle and show the TRON tx id', async (t) => {
  const g = await grid(t);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const p = await payd(t, { apiUrl: g.url });
  const m = await p.merchant('Shop', receiver.url);
  const ten = await create(p, m.headers, { amount: 10, currency: 'USDT_TRC20', order_id: 'batch-10' });
  const twenty = await create(p, m.headers, { amount: 20, currency: 'USDT_TRC20', order_id: 'batch-20' });

  // An exchange's batch payout: one transaction, three Transfer events to us (the last a repeat of the first).
  const id = txid();
  const at = Date.now();
  g.add({ transaction_id: id, from: STRANGER, value: '10000000', block_timestamp: at });
  g.add({ transaction_id: id, from: STRANGER, value: '20000000', block_timestamp: at });
  g.add({ transaction_id: id, from: STRANGER, value: '10000000', block_timestamp: at });

  await waitFor(async () => (await statusOf(p, ten.intent_id)) === 'settled' && (await statusOf(p, twenty.intent_id)) === 'settled', 8000, 'both intents to settle');
  assert.equal((await p.app.intents.get(ten.intent_id)).transaction_hash, id);
  assert.equal((await p.app.intents.get(twenty.intent_id)).transaction_hash, id);
  const hooks = await receiver.waitFor(2);
  assert.deepEqual(hooks.map((h) => JSON.parse(h.body).data.transaction_hash), [id, id]);

  // The repeated row is a third payment, kept for the operator: nothing is dropped, nothing counted twice.
  await waitFor(async () => (await p.app.payments.list({})).length === 3, 5000, 'three payments');
  const payments = await p.app.payments.list({});
  assert.deepEqual(payments.map((x: { status: string }) => x.status).sort(), ['matched', 'matched', 'unmatched']);
  assert.ok(payments.every((x: { tx_ref: string }) => x.tx_ref.startsWith(id)));
  assert.equal((payments.find((x: { status: string }) => x.status === 'unmatched') as { reason: string }).reason, 'already_settled');

  // Listed again (the overlap window, a restart): still three payments, two settlements.
  const served = g.served.get(id) ?? 0;
  await waitFor(async () => (g.served.get(id) ?? 0) >= served + 3, 5000, 'the rows to be listed again');
  assert.equal((await p.app.payments.list({})).length, 3);
  assert.equal((await receiver.waitFor(2)).length, 2);
});

test('TRON: a transaction an operator already settled by hand is not counted again when its row is listed', async (t) => {
  const g = await grid(t);
  const p = await payd(t, { apiUrl: g.url });
  const m = await p.merchant();
  const intent = await create(p, m.headers, { amount: 5, currency: 'USDT_TRC20', order_id: 'manual-first' });
  const other = await create(p, m.headers, { amount: 6, currency: 'USDT_TRC20', order_id: 'same-tx-other-row' });
  const id = txid();
  // Before the source sees it, the operator settles the intent with the TRON transaction id.
  await p.app.ledger.ingestWith(
    { method: 'USDT_TRC20', receiver: MERCHANT, amountMinor: 5_000_000n, txRef: id, occurredAt: Date.now(), observedAt: Date.now(), source: 'manual' },
    undefined,
    { intentId: intent.intent_id, note: 'paid, customer sent the tx id' },
  );
  g.add({ transaction_id: id, from: CUSTOMER, value: '5000000', block_timestamp: Date.now() });
  g.add({ transaction_id: id, from: CUSTOMER, value: '6000000', block_timestamp: Date.now() });
  await waitFor(async () => (await statusOf(p, other.intent_id)) === 'settled', 8000, 'the other row of that transaction to settle');
  const payments = await p.app.payments.list({});
  assert.equal(payments.length, 2, JSON.stringify(payments));
  assert.deepEqual(payments.map((x: { source: string }) => x.source).sort(), ['manual', 'trongrid']);
});

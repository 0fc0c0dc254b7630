/**
 * TRON through the real app (real source, real ledger, real SQLite) against the fake
 * TronGrid serving what TronGrid serves (test/fixtures/chains/REAL-UPSTREAMS.md §1): several Transfer rows
 * sharing one transaction id, transfers indexed late, error bodies without Retry-After.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CUSTOMER, MERCHANT, startFakeTronGrid, STRANGER, txid, type FakeTronGrid } from '../fakes/trongrid.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

async function grid(t: TestContext): Promise<FakeTronGrid> {
  const g = await startFakeTronGrid();
  t.after(() => g.close());
  return g;
}

async function payd(t: TestContext, tron: Record<string, unknown>, o: Parameters<typeof startPayd>[0] = {}) {
  const p = await startPayd({ workers: true, sources: 'configured', ...o, config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: { address: MERCHANT, pollSeconds: 0.1, apiKey: 'test-key', ...tron } } } });
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
  // pay_amounts 10.01 and 20.01: never a whole USDT.
  g.add({ transaction_id: id, from: STRANGER, value: '10010000', block_timestamp: at });
  g.add({ transaction_id: id, from: STRANGER, value: '20010000', block_timestamp: at });
  g.add({ transaction_id: id, from: STRANGER, value: '10010000', block_timestamp: at });

  await waitFor(async () => (await statusOf(p, ten.intent_id)) === 'settled' && (await statusOf(p, twenty.intent_id)) === 'settled', 8000, 'both intents to settle');
  assert.equal((await p.app.intents.get(ten.intent_id)).transaction_hash, id);
  assert.equal((await p.app.intents.get(twenty.intent_id)).transaction_hash, id);
  const hooks = (await receiver.waitFor(3)).filter((h) => JSON.parse(h.body).type === 'payment.success');
  assert.deepEqual(hooks.map((h) => JSON.parse(h.body).data.transaction_hash), [id, id]);

  // The repeated row is a third payment, held on the intent it repeats (after_settlement): nothing is dropped, nothing counted twice.
  await waitFor(async () => (await p.app.payments.list({})).length === 3, 5000, 'three payments');
  const payments = await p.app.payments.list({});
  assert.deepEqual(payments.map((x: { status: string }) => x.status).sort(), ['held', 'matched', 'matched']);
  assert.ok(payments.every((x: { tx_ref: string }) => x.tx_ref.startsWith(id)));
  assert.equal((payments.find((x: { status: string }) => x.status === 'held') as { reason: string }).reason, 'after_settlement');

  // Listed again (the overlap window, a restart): still three payments, two settlements.
  const served = g.served.get(id) ?? 0;
  await waitFor(async () => (g.served.get(id) ?? 0) >= served + 3, 5000, 'the rows to be listed again');
  assert.equal((await p.app.payments.list({})).length, 3);
  // Two settlements, and the merchant is told of the repeated row once (payment.held).
  const types = (await receiver.waitFor(3)).map((h) => JSON.parse(h.body).type).sort();
  assert.deepEqual(types, ['payment.held', 'payment.success', 'payment.success']);
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
    { method: 'USDT_TRC20', receiver: MERCHANT, amountMinor: 5_010_000n, txRef: id, occurredAt: Date.now(), observedAt: Date.now(), source: 'manual' },
    undefined,
    { intentId: intent.intent_id, note: 'paid, customer sent the tx id' },
  );
  g.add({ transaction_id: id, from: CUSTOMER, value: '5010000', block_timestamp: Date.now() });
  g.add({ transaction_id: id, from: CUSTOMER, value: '6010000', block_timestamp: Date.now() });
  await waitFor(async () => (await statusOf(p, other.intent_id)) === 'settled', 8000, 'the other row of that transaction to settle');
  const payments = await p.app.payments.list({});
  assert.equal(payments.length, 2, JSON.stringify(payments));
  assert.deepEqual(payments.map((x: { source: string }) => x.source).sort(), ['manual', 'trongrid']);
});

test('TRON: a transfer TronGrid lists 20 minutes late is never seen by the listing, and settles on the next re-scan', async (t) => {
  const g = await grid(t);
  const clock = testClock();
  const t0 = clock.now();
  const p = await payd(t, { apiUrl: g.url }, { clock });
  const m = await p.merchant();
  const intent = await create(p, m.headers, { amount: 33, currency: 'USDT_TRC20', order_id: 'late-indexed' });
  await waitFor(async () => g.requests.length >= 1, 5000, 'a first listing');

  // Paid a minute after the intent was created; TronGrid does not list it yet.
  const late = g.add({ value: '33010000', from: CUSTOMER, block_timestamp: t0 + 60_000, indexed: false });
  // 21 minutes later another transfer is listed: the watermark moves past the missing one.
  clock.advance(22 * 60_000);
  g.add({ value: '1000000', from: STRANGER, block_timestamp: t0 + 21 * 60_000 });
  await waitFor(async () => (await p.app.payments.list({})).length === 1, 5000, 'the newer transfer to be recorded');
  // More than a re-scan period has passed: one runs now, before TronGrid has the late transfer.
  // A re-scan lists from (clock - 24 h); the first start's own listing began 5 min further back.
  const deep = (r: { url: URL }) => {
    const from = Number(r.url.searchParams.get('min_timestamp'));
    return from <= t0 && from > t0 - 24 * 3_600_000;
  };
  await waitFor(async () => g.requests.some(deep), 5000, 'the re-scan that cannot see it yet');

  // Now TronGrid back-fills the late one (20 minutes behind the newest listed transfer).
  g.index(late.transaction_id);
  const from = g.requests.length;
  await waitFor(async () => g.requests.length >= from + 5, 5000, 'several more listings');
  assert.equal(await statusOf(p, intent.intent_id), 'pending', 'the regular listing (5 min overlap) never reaches that far back');
  assert.ok(g.requests.slice(from).every((r) => Number(r.url.searchParams.get('min_timestamp')) > late.block_timestamp));

  // One re-scan period later (rescanSeconds, default 600), the deep re-scan lists the last 24 h and settles it.
  clock.advance(600_000);
  await waitFor(async () => (await statusOf(p, intent.intent_id)) === 'settled', 5000, 'settlement by the re-scan');
  assert.equal((await p.app.intents.get(intent.intent_id)).transaction_hash, late.transaction_id);
  const rescans = g.requests.filter(deep);
  assert.equal(rescans.length, 2, 'one re-scan per period');
  // Same filters as the listing, only further back: the last rescanHours (24).
  const q = rescans[rescans.length - 1].url.searchParams;
  assert.equal(Number(q.get('min_timestamp')), clock.now() - 24 * 3_600_000);
  assert.equal(q.get('only_confirmed'), 'true');
  assert.equal(q.get('contract_address'), g.transfers[0].token.address);
  assert.equal((await p.app.payments.list({})).length, 2, 'the re-scan records nothing twice');
});

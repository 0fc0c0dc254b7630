/**
 * TRON transfers that move no money never settle, and identical rows
 * of one transaction split across a page/tick boundary of the re-scan stay two rows.
 * Against the fake TronGrid (test/fakes/trongrid.ts), which lists both directions unless
 * `only_to` is asked for, as TronGrid does.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CUSTOMER, MERCHANT, STRANGER, startFakeTronGrid, txid, type FakeTronGrid } from '../fakes/trongrid.ts';
import { startHarness } from '../helpers/tron-harness.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

const signal = () => AbortSignal.timeout(10_000);
const MIN = 60_000;

test('re-scan: two identical rows of one transaction split across a page and tick boundary are two payments', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  let now = Date.now();
  const clock = { now: () => now };
  const source = h.source({ clock, tuning: { pageLimit: 1, maxPagesPerTick: 1 } });
  // Two identical rows (a batch payout paying the same amount twice), not yet indexed by TronGrid.
  const id = txid();
  const at = now - 30 * MIN;
  h.fake.add({ transaction_id: id, from: STRANGER, value: '4000000', block_timestamp: at, indexed: false });
  h.fake.add({ transaction_id: id, from: STRANGER, value: '4000000', block_timestamp: at, indexed: false });
  h.fake.add({ value: '1000000', block_timestamp: now - MIN });
  await source.tick(signal()); // first start: lists the window, sees only the newer row
  assert.equal(h.ledger.payments().length, 1);
  h.fake.index(id); // TronGrid back-fills them, 29 minutes behind the watermark: only the re-scan can see them
  now += 601_000;
  for (let i = 0; i < 8; i++) await source.tick(signal()); // one page per tick: the re-scan spans ticks
  const rows = h.ledger.payments().filter((p) => p.txHash === id);
  assert.deepEqual(rows.map((p) => p.txRef).sort(), [`${id}:${STRANGER}:4000000`, `${id}:${STRANGER}:4000000:2`]);
});

test('source: rows from our own address are rejected self_transfer; a transaction\'s outgoing rows are netted against its incoming ones', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.ledger.openIntents = 1;
  const self = h.fake.add({ from: MERCHANT, to: MERCHANT, value: '100010000' });
  // A contract pays V in and takes V out in the same transaction.
  const loop = txid();
  h.fake.add({ transaction_id: loop, from: STRANGER, to: MERCHANT, value: '50000000' });
  h.fake.add({ transaction_id: loop, from: MERCHANT, to: STRANGER, value: '50000000' });
  // In 30, out 10: 20 is credited.
  const partial = txid();
  h.fake.add({ transaction_id: partial, from: CUSTOMER, to: MERCHANT, value: '30000000' });
  h.fake.add({ transaction_id: partial, from: MERCHANT, to: STRANGER, value: '10000000' });
  // A merchant's own payout is neither a payment nor a rejection.
  h.fake.add({ from: MERCHANT, to: STRANGER, value: '7000000' });
  const real = h.fake.add({ from: CUSTOMER, to: MERCHANT, value: '12340000' });
  const source = h.source({ tuning: { pageLimit: 2 } }); // rows of one transaction straddle pages
  await source.tick(signal());
  await source.tick(signal());

  const byHash = new Map(h.ledger.payments().map((p) => [p.txHash, p]));
  assert.equal(byHash.get(real.transaction_id)?.amountMinor, 12_340_000n);
  assert.equal(byHash.get(partial)?.amountMinor, 20_000_000n, 'only the net credit counts');
  assert.equal(byHash.get(partial)?.evidence?.value, '30000000', 'the gross row stays in the evidence');
  assert.equal(byHash.has(loop), false);
  assert.equal(byHash.has(self.transaction_id), false);
  assert.equal(h.ledger.payments().length, 2);
  const reasons = new Map(h.ledger.rejects.map((r) => [String(r.observation.detail?.txid), r.observation.reason]));
  assert.equal(reasons.get(self.transaction_id), 'self_transfer');
  assert.equal(reasons.get(loop), 'netted_by_outgoing');
  assert.equal(reasons.size, 2);
});

async function grid(t: TestContext): Promise<FakeTronGrid> {
  const g = await startFakeTronGrid();
  t.after(() => g.close());
  return g;
}

async function payd(t: TestContext, g: FakeTronGrid) {
  const p = await startPayd({ workers: true, sources: 'configured', config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: { address: MERCHANT, pollSeconds: 0.1, apiKey: 'test-key', apiUrl: g.url } } } });
  t.after(() => p.close());
  return p;
}
const create = async (p: PaydHarness, headers: Record<string, string>, body: object) => (await p.api('POST', '/api/v1/intents/create-payment', { body, headers })).body;

test('end to end: transferFrom(merchant, merchant, 100.01) and a V in / V out contract settle nothing; a real payment still settles', async (t) => {
  const g = await grid(t);
  const p = await payd(t, g);
  const m = await p.merchant();
  const open = await create(p, m.headers, { amount: 100.01, currency: 'USDT_TRC20', order_id: 'self' });
  const netted = await create(p, m.headers, { amount: 42, currency: 'USDT_TRC20', order_id: 'in-out' });
  const paid = await create(p, m.headers, { amount: 7.5, currency: 'USDT_TRC20', order_id: 'real' });
  const at = Date.now();
  const usdt = (i: { pay_amount: number }) => String(BigInt(Math.round(Number(i.pay_amount) * 1e6)));

  // Anyone with an allowance on the merchant's address moves the merchant's own USDT to itself.
  const self = g.add({ from: MERCHANT, to: MERCHANT, value: usdt(open), block_timestamp: at });
  const loop = txid();
  g.add({ transaction_id: loop, from: STRANGER, to: MERCHANT, value: usdt(netted), block_timestamp: at });
  g.add({ transaction_id: loop, from: MERCHANT, to: STRANGER, value: usdt(netted), block_timestamp: at });
  const real = g.add({ from: CUSTOMER, to: MERCHANT, value: usdt(paid), block_timestamp: at + 1_000 });

  await waitFor(async () => (await p.app.intents.get(paid.intent_id)).status === 'settled', 8000, 'the real payment to settle');
  assert.equal((await p.app.intents.get(paid.intent_id)).transaction_hash, real.transaction_id);
  await waitFor(async () => (await p.app.payments.rejections()).length === 2, 5000, 'both rejections');
  const reasons = (await p.app.payments.rejections()).map((r) => [r.reason, (r.detail as { txid: string }).txid]).sort();
  assert.deepEqual(reasons, [['netted_by_outgoing', loop], ['self_transfer', self.transaction_id]].sort());
  assert.equal((await p.app.intents.get(open.intent_id)).status, 'pending');
  assert.equal((await p.app.intents.get(netted.intent_id)).status, 'pending');
  assert.equal((await p.app.payments.list({})).length, 1);
});

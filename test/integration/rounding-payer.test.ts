// A payer who rounds ₹499.37 down to ₹499.00 must never settle another
// customer's ₹499.00 intent. payd never hands out a whole-unit pay_amount (domain/amount-window.ts),
// so a whole payment is a short payment of the payer's own intent (attributed when it alone lies
// in the window) or ambiguous and unmatched: never an exact match. Both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baseConfig, startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');

async function setup(t: { after: (fn: () => unknown) => void }, store: TestStore, upi: Record<string, unknown> = {}) {
  const clock = testClock(T0);
  const base = baseConfig('/nonexistent').methods as Record<string, any>;
  const p = await startPayd({ store, clock, ...(Object.keys(upi).length ? { config: { methods: { UPI: { ...base.UPI, ...upi } } } } : {}) });
  t.after(() => p.close());
  const m = await p.merchant();
  const create = async (order: string, amount: number, currency = 'UPI') => {
    const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency, order_id: order }, headers: m.headers });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const intent = async (id: string) => (await p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers })).body;
  return { p, clock, create, intent };
}

/** A UPI credit alert of `rupees`, as the mailbox source hands it to the ledger. */
function payUpi(p: PaydHarness, rupees: number, utr: string) {
  (p.clock as ReturnType<typeof testClock>).advance(1000);
  const now = p.clock.now();
  return p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(rupees * 100)), txRef: utr, occurredAt: now, observedAt: now, source: 'imap' });
}

forEachStore((store) => {
  test('two ₹499.00 intents: neither pay_amount is ₹499.00, and a ₹499.00 payment settles neither (ambiguous, unmatched)', async (t) => {
    const { p, create, intent } = await setup(t, store);
    const a = await create('round-a', 499);
    const b = await create('round-b', 499);
    assert.deepEqual([a.pay_amount, b.pay_amount], [499.01, 499.02]);
    const out = await payUpi(p, 499, '611111111111');
    assert.deepEqual([out.kind, (out as { reason?: string }).reason], ['unmatched', 'ambiguous']);
    for (const i of [a, b]) {
      const f = await intent(i.intent_id);
      assert.equal(f.status, 'pending');
      assert.deepEqual(f.payments, []);
    }
    assert.equal((await p.app.payments.list({ unmatched: true })).some((x) => x.tx_ref === '611111111111'), true, 'the operator still sees it');
  });

  test("the ₹499.37 customer rounds down to ₹499.00: another customer's ₹499.00 intent is not settled", async (t) => {
    const { p, create, intent } = await setup(t, store);
    const other = await create('priced-499', 499);
    const payer = await create('priced-499.37', 499.37);
    assert.deepEqual([other.pay_amount, payer.pay_amount], [499.01, 499.37]);
    const out = await payUpi(p, 499, '622222222222');
    // Both lie within ₹1.00 above it: not attributable, never an exact match of ₹499.00.
    assert.deepEqual([out.kind, (out as { reason?: string }).reason], ['unmatched', 'ambiguous']);
    for (const i of [other, payer]) assert.equal((await intent(i.intent_id)).status, 'pending');
    // The customer then pays the amount asked: it settles their own intent, and only it.
    assert.equal((await payUpi(p, 499.37, '633333333333')).kind, 'settled');
    assert.equal((await intent(payer.intent_id)).transaction_hash, '633333333333');
    assert.equal((await intent(other.intent_id)).status, 'pending');
  });

  test('a lone ₹499.00 intent: a ₹499.00 payment is a short payment of it (held, underpaid by ₹0.01), not an exact one', async (t) => {
    const { p, create, intent } = await setup(t, store);
    const a = await create('alone', 499);
    assert.equal(a.pay_amount, 499.01);
    assert.equal((await payUpi(p, 499, '644444444444')).kind, 'held');
    const f = await intent(a.intent_id);
    assert.equal(f.status, 'pending');
    assert.deepEqual(f.payments.map((x: any) => [x.transaction_hash, x.amount, x.status, x.reason]), [['644444444444', 499, 'held', 'underpaid']]);
  });

  test('price + offset never lands on a whole unit either: ₹499.99 is followed by ₹500.01, USDT 24.99 by 25.01', async (t) => {
    const { create } = await setup(t, store);
    const upi = [];
    for (let i = 0; i < 3; i++) upi.push((await create(`edge-${i}`, 499.99)).pay_amount);
    assert.deepEqual(upi, [499.99, 500.01, 500.02]);
    const usdt = [];
    for (let i = 0; i < 2; i++) usdt.push((await create(`edge-usdt-${i}`, 24.99, 'USDT_TRC20')).pay_amount);
    assert.deepEqual(usdt, [24.99, 25.01]);
  });

  test("the ₹499.37 customer rounds up to ₹500.00: another customer's ₹500 intent is not settled, even under a 1% tolerance", async (t) => {
    const { p, create, intent } = await setup(t, store, { underpaymentTolerance: '1%' });
    const payer = await create('priced-499.37-up', 499.37);
    const other = await create('priced-500', 500);
    assert.deepEqual([payer.pay_amount, other.pay_amount], [499.37, 500.01]);
    const out = await payUpi(p, 500, '655555555555');
    // ₹500.00 is ₹0.01 short of ₹500.01 (within the tolerance), but ₹499.37 lies within a rupee below it: nobody's.
    assert.deepEqual([out.kind, (out as { reason?: string }).reason], ['unmatched', 'ambiguous']);
    for (const i of [payer, other]) assert.equal((await intent(i.intent_id)).status, 'pending');
    // Alone, the same short payment settles within the tolerance.
    const lone = await create('priced-700', 700);
    assert.equal((await payUpi(p, 700, '666666666666')).kind, 'settled');
    assert.equal((await intent(lone.intent_id)).status, 'settled');
  });
});

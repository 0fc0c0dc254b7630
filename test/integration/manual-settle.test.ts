// `payd intents settle <id> --tx <ref>` as a service: references normalised by method, a payment
// recorded as unmatched is linked (audited), and one transfer never settles two intents.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { startPayd, RECEIVERS, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

// On both stores: SQLite and PostgreSQL (test/helpers/stores.ts).
forEachStore((store) => {
  async function setup(t: TestContext) {
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant();
    const merchant = await p.app.merchants.get(m.clientId);
    const intent = async (currency: string, amount: number, order: string) => (await p.app.intents.create(merchant, { amount, currency, order_id: order })).intent_id;
    return { p, intent };
  }

  const audit = async (p: PaydHarness, action: string) => p.app.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  test('a UPI payment kept unmatched is linked to the intent named by hand, under any spelling of its UTR', async (t) => {
    const { p, intent } = await setup(t);
    const a = await intent('UPI', 250, 'A');
    const b = await intent('UPI', 300, 'B');
    const now = Date.now();
    // The customer paid 248.50 instead of 250, beyond the ₹1.00 attribution window: kept unmatched.
    const seen = await p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: 24850n, txRef: '612345678901', occurredAt: now, observedAt: now, source: 'imap' });
    assert.equal(seen.kind, 'unmatched');

    // Short of what the intent is due: refused unless the operator confirms the difference (checked in the settling transaction).
    await assert.rejects(p.app.manualSettlement.settle({ intentId: a, txRef: '612345678901' }), (e: any) => e.code === 'CONFLICT' && /248\.50 UPI, 1\.51 UPI less than the 250\.01 UPI/.test(e.message));
    assert.equal((await p.app.intents.get(a)).status, 'pending');
    const r = await p.app.manualSettlement.settle({ intentId: a, txRef: ' UTR 6123 4567 8901 ', note: 'short by 50 paise, accepted', acceptDifference: true });
    assert.deepEqual(r, { intent_id: a, tx_ref: '612345678901', payment_id: (seen as { paymentId: string }).paymentId, linked: true });
    const settled = await p.app.intents.get(a);
    assert.equal(settled.status, 'settled');
    assert.equal(settled.transaction_hash, '612345678901');
    const pays = await p.app.payments.forIntent(a);
    assert.deepEqual(pays.map((x: any) => [x.tx_ref, x.status]), [['612345678901', 'matched']]);
    const links = await audit(p, 'payment.link');
    assert.equal(links.length, 1);
    assert.equal(JSON.parse(links[0].details_json!).intent_id, a);
    assert.deepEqual((await p.app.events.forIntent(a)).map((e) => e.type), ['payment.success']);

    // The same transfer cannot settle a second intent, however it is written.
    await assert.rejects(p.app.manualSettlement.settle({ intentId: b, txRef: '6123-4567-8901' }), (e: any) => e.code === 'CONFLICT' && new RegExp(`already settled intent ${a}`).test(e.message));
    assert.equal((await p.app.intents.get(b)).status, 'pending');
    await assert.rejects(p.app.manualSettlement.settle({ intentId: b, txRef: 'no digits' }), (e: any) => e.code === 'INVALID_REQUEST');
  });

  test('TRON references are lower-case hex without 0x: one transaction id settles one intent', async (t) => {
    const { p, intent } = await setup(t);
    const a = await intent('USDT_TRC20', 10, 'A');
    const b = await intent('USDT_TRC20', 11, 'B');
    const txid = 'ab'.repeat(32);
    const r = await p.app.manualSettlement.settle({ intentId: a, txRef: `0x${txid.toUpperCase()}` });
    assert.equal(r.tx_ref, txid);
    assert.equal(r.linked, false);
    assert.equal((await p.app.intents.get(a)).transaction_hash, txid);
    await assert.rejects(p.app.manualSettlement.settle({ intentId: b, txRef: txid }), (e: any) => e.code === 'CONFLICT');
    assert.equal((await p.app.intents.get(b)).status, 'pending');
  });

  test('an unmatched TRON Transfer row is found by its transaction id and linked', async (t) => {
    const { p, intent } = await setup(t);
    const a = await intent('USDT_TRC20', 10, 'A');
    const txid = 'cd'.repeat(32);
    const now = Date.now();
    // 8.99 for 10.01: beyond the 1 USDT attribution window, kept unmatched.
    const row = `${txid}:TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf:8990000`;
    const seen = await p.app.ledger.ingest({ method: 'USDT_TRC20', receiver: RECEIVERS.USDT_TRC20, amountMinor: 8_990_000n, txRef: row, txHash: txid, occurredAt: now, observedAt: now, source: 'trongrid' });
    assert.equal(seen.kind, 'unmatched');
    const r = await p.app.manualSettlement.settle({ intentId: a, txRef: `0X${txid.toUpperCase()}`, acceptDifference: true });
    assert.deepEqual([r.tx_ref, r.linked], [row, true]);
    assert.equal((await p.app.intents.get(a)).transaction_hash, txid, 'the merchant sees the transaction id');
    assert.equal((await p.app.payments.forIntent(a)).length, 1, 'no second payment row for the same transfer');
  });
});

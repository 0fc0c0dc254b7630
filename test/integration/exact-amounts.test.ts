// Amounts of any precision: an 18-decimal token (as USDT on BNB Smart Chain) through the whole
// pipeline on both stores. Its base units pass 2^53 above 0.009 tokens and 2^63 above 9.2, so
// every step (create, the unique-amount pool, matching, settlement, webhooks, fetch) must keep
// them exact; a JSON number cannot, so the API adds `<field>_exact` beside it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { methodRegistry } from '../../src/methods/registry.ts';
import { createTestcoin } from '../fixtures/methods/testcoin/method.ts';
import { createResponseChecker } from '../helpers/openapi.ts';
import { baseConfig, startPayd } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { forEachStore } from '../helpers/stores.ts';

const SHOP = 'tc1wei18';

forEachStore((store) => {
  test('an 18-decimal amount is reserved, matched, settled, short-paid and read back to the last base unit', async (t) => {
    const coin = createTestcoin({ id: 'TESTWEI', decimals: 18, unit: 'TWEI' });
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const dir = mkdtempSync(join(tmpdir(), 'payd-exact-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // One base unit of tolerance: a payment 1 unit short settles with underpaid_by, 2 short is held.
    const rawConfig = { ...baseConfig(dir), methods: { TESTWEI: { address: SHOP, underpaymentTolerance: '0.000000000000000001' } } };
    const p = await startPayd({ dir, rawConfig, methods: methodRegistry([coin.method]), workers: true, sources: 'configured', store });
    t.after(() => p.close());
    const m = await p.merchant('Wei shop', receiver.url);
    const doc = JSON.parse(await (await fetch(`${p.url}/api/v1/openapi.json`)).text());
    const checker = createResponseChecker(doc);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(p.url + path, { method, headers: { ...m.headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      const parsed = JSON.parse(text);
      assert.equal(checker.check(method, p.url + path, res.status, res.headers.get('content-type'), parsed), undefined);
      return { status: res.status, text, body: parsed };
    };
    const create = (amount: string, order: string) => call('POST', '/api/v1/intents/create-payment', { amount, currency: 'TESTWEI', order_id: order });

    // Created from a decimal string; the JSON number is written exactly, and the string beside it
    // is what a reader parsing doubles uses.
    const a = await create('12.345678901234567891', 'wei-a');
    assert.equal(a.status, 200, a.text);
    assert.match(a.text, /"pay_amount":12\.345678901234567891[,}]/);
    assert.equal(a.body.pay_amount_exact, '12.345678901234567891');
    assert.equal(a.body.amount_exact, '12.345678901234567891');
    assert.equal(a.body.payment_uri, `testcoin:${SHOP}?amount=12.345678901234567891&memo=wei-a`);
    // The same amount again takes the next base unit of the pool, not a float's neighbour.
    const b = await create('12.345678901234567891', 'wei-b');
    assert.equal(b.body.pay_amount_exact, '12.345678901234567892');
    // Past 2^63 base units (SQLite's integers) and 10^22 of them.
    const c = await create('20000.000000000000000123', 'wei-c');
    assert.equal(c.body.pay_amount_exact, '20000.000000000000000123');
    const d = await create('7.000000000000000005', 'wei-d');
    assert.equal(d.body.pay_amount_exact, '7.000000000000000005');
    // A JSON number for an amount a double carries exactly still works, and needs no string.
    const e = await call('POST', '/api/v1/intents/create-payment', { amount: 0.5, currency: 'TESTWEI', order_id: 'wei-e' });
    assert.equal(e.body.pay_amount, 0.5);
    assert.equal('pay_amount_exact' in e.body, false);
    const tooFine = await create('1.0000000000000000001', 'wei-f');
    assert.equal(tooFine.status, 400);
    assert.match(tooFine.text, /at most 18 decimal places/);

    coin.pay(SHOP, 12_345_678_901_234_567_891n, 'wei-tx-a'); // exactly a's
    coin.pay(SHOP, 20_000_000_000_000_000_000_122n, 'wei-tx-c'); // 1 short of c's: within the tolerance
    coin.pay(SHOP, 7_000_000_000_000_000_003n, 'wei-tx-d'); // 2 short of d's: held
    const hooks = (await receiver.waitFor(3, 30_000)).map((h) => JSON.parse(h.body));
    const hookOf = (id: string) => hooks.find((h) => h.data.intent_id === id);
    for (const h of hooks) assert.equal(checker.checkWebhook(h), undefined);

    const paidA = hookOf(a.body.intent_id);
    assert.equal(paidA.type, 'payment.success');
    assert.equal(paidA.data.amount_received_exact, '12.345678901234567891');
    assert.equal(paidA.data.payments[0].amount_exact, '12.345678901234567891');
    assert.equal(paidA.data.underpaid_by, undefined);

    const paidC = hookOf(c.body.intent_id);
    assert.equal(paidC.type, 'payment.success');
    assert.equal(paidC.data.amount_received_exact, '20000.000000000000000122');
    assert.equal(paidC.data.underpaid_by, 0.000000000000000001); // a double carries 1e-18 exactly enough to print back
    assert.equal(paidC.data.underpaid_by_exact, undefined);

    const heldD = hookOf(d.body.intent_id);
    assert.equal(heldD.type, 'payment.held');
    assert.equal(heldD.data.reason, 'underpaid');
    assert.equal(heldD.data.amount_exact, '7.000000000000000003');

    // Read back from the store through the API: nothing rounded on the way in or out.
    const fetchedA = await call('GET', `/api/v1/intents/${a.body.intent_id}`);
    assert.equal(fetchedA.body.status, 'settled');
    assert.equal(fetchedA.body.pay_amount_exact, '12.345678901234567891');
    assert.equal(fetchedA.body.amount_received_exact, '12.345678901234567891');
    const fetchedB = await call('GET', `/api/v1/intents/${b.body.intent_id}`);
    assert.equal(fetchedB.body.status, 'pending');
    assert.equal(fetchedB.body.pay_amount_exact, '12.345678901234567892');
    const fetchedC = await call('GET', `/api/v1/intents/${c.body.intent_id}`);
    assert.equal(fetchedC.body.status, 'settled');
    assert.equal(fetchedC.body.amount_received_exact, '20000.000000000000000122');
    const fetchedD = await call('GET', `/api/v1/intents/${d.body.intent_id}`);
    assert.equal(fetchedD.body.status, 'pending');
    assert.deepEqual(
      fetchedD.body.payments.map((x: { amount_exact: string; status: string }) => [x.amount_exact, x.status]),
      [['7.000000000000000003', 'held']],
    );
  });
});

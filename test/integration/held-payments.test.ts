// Messy real payments (late, short, in parts, over, to a canceled intent) end in the
// merchant's hands: on the intent (amount_received, payments[]), as events (payment.held,
// payment.refunded, payment.success extras) and resolvable over the API. Both stores.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { payd } from '../helpers/cli.ts';
import { test } from 'node:test';
import { createResponseChecker } from '../helpers/openapi.ts';
import { baseConfig, startPayd, testClock, RECEIVERS, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const checker = createResponseChecker();

async function setup(t: { after: (fn: () => unknown) => void }, store: TestStore, methods: Record<string, any> = {}) {
  const clock = testClock(T0);
  // Each method's policy keys are added to the harness's own section of that method.
  const base = baseConfig('/nonexistent').methods as Record<string, any>;
  const merged = Object.fromEntries(Object.entries(methods).map(([k, v]) => [k, { ...base[k], ...v }]));
  const p = await startPayd({ store, clock, config: { intents: { ttlSeconds: 1800, amountReuseCooldownSeconds: 86400 }, methods: merged } });
  t.after(() => p.close());
  const m = await p.merchant();
  const create = async (order: string, amount: number, currency = 'UPI') => {
    const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency, order_id: order }, headers: m.headers });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const fetchIntent = async (id: string, headers = m.headers) => p.api('GET', `/api/v1/intents/${id}`, { headers });
  const act = (id: string, tx: string, verb: 'accept' | 'refunded', headers = m.headers) => p.api('POST', `/api/v1/intents/${id}/payments/${tx}/${verb}`, { headers });
  return { p, m, clock, create, fetchIntent, act };
}

const DECIMALS: Record<string, number> = { UPI: 2, USDT_TRC20: 6, USDT_SOL: 6, SOL: 9 };
const RECEIVER: Record<string, string> = { UPI: 'shop@hdfcbank', USDT_TRC20: RECEIVERS.USDT_TRC20, USDT_SOL: RECEIVERS.USDT_SOL, SOL: RECEIVERS.SOL };
const minor = (amount: number, method: string) => BigInt(Math.round(amount * 10 ** DECIMALS[method]));

/** A payment of `amount` as the method's source hands it to the ledger, happening now. */
function pay(p: PaydHarness, method: string, amount: number, txRef: string, reference?: string) {
  (p.clock as ReturnType<typeof testClock>).advance(1000); // payments arrive one after another
  const now = p.clock.now();
  return p.app.ledger.ingest({ method: method as any, receiver: RECEIVER[method], amountMinor: minor(amount, method), txRef, occurredAt: now, observedAt: now, source: 'imap', ...(reference ? { references: [reference] } : {}) });
}

/** The intent's events: type and body, each checked against the OpenAPI document's webhooks. */
async function events(p: PaydHarness, intentId: string) {
  const out: { type: string; data: any }[] = [];
  for (const e of await p.app.events.forIntent(intentId)) {
    const body = (await p.app.events.show(e.event_id)).body as { type: string; data: any };
    assert.equal(checker.checkWebhook(body), undefined, `${body.type} matches the OpenAPI document`);
    out.push({ type: body.type, data: body.data });
  }
  return out;
}

forEachStore((store) => {
  test('late exact payment: settles the expired intent under the default, payment.success says late: true', async (t) => {
    const { p, clock, create, fetchIntent } = await setup(t, store);
    const intent = await create('late-1', 250.37);
    clock.advance(1800_000 + 600_000); // 10 min after expires_at
    assert.equal((await pay(p, 'UPI', 250.37, '611111111111')).kind, 'settled');
    const f = (await fetchIntent(intent.intent_id)).body;
    assert.equal(f.status, 'settled');
    assert.equal(f.transaction_hash, '611111111111');
    assert.equal(f.amount_received, 250.37);
    assert.deepEqual(f.payments, [{ transaction_hash: '611111111111', amount: 250.37, received_at: new Date(clock.now()).toISOString(), status: 'credited', reason: 'late' }]);
    const ev = await events(p, intent.intent_id);
    const success = ev.find((e) => e.type === 'payment.success')!;
    assert.equal(success.data.late, true);
    assert.equal(success.data.amount_received, 250.37);
  });

  test('late exact payment under latePayments "hold": held, payment.held, then accepted over the API (once)', async (t) => {
    const { p, m, clock, create, fetchIntent, act } = await setup(t, store, { USDT_TRC20: { latePayments: 'hold' } });
    const intent = await create('late-2', 25.01, 'USDT_TRC20');
    clock.advance(1800_000 + 60_000);
    const tx = 'a'.repeat(64);
    assert.equal((await pay(p, 'USDT_TRC20', 25.01, tx)).kind, 'held');
    let f = (await fetchIntent(intent.intent_id)).body;
    assert.equal(f.status, 'expired');
    assert.equal(f.amount_received, 0);
    assert.deepEqual(f.payments.map((x: any) => [x.transaction_hash, x.amount, x.status, x.reason]), [[tx, 25.01, 'held', 'late']]);
    assert.deepEqual((await events(p, intent.intent_id)).map((e) => e.type), ['payment.held']);
    assert.match(await (await fetch(`${p.url}/pay/${intent.intent_id}`)).text(), /We received your payment of 25\.01 USDT after this payment request had expired/);
    const held = (await events(p, intent.intent_id)).find((e) => e.type === 'payment.held')!;
    // The order and the amount asked come with it: the merchant decides without a fetch.
    assert.deepEqual(held.data, { intent_id: intent.intent_id, order_id: 'late-2', currency: 'USDT_TRC20', transaction_hash: tx, amount: 25.01, pay_amount: 25.01, reason: 'late' });
    // The API's event feed carries it too.
    const feed = await p.api('GET', '/api/v1/events?type=payment.held', { headers: m.headers });
    assert.equal(feed.status, 200);
    assert.deepEqual(feed.body.data.map((e: any) => e.data), [held.data]);

    const accepted = await act(intent.intent_id, tx, 'accept');
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.status, 'settled');
    assert.equal(accepted.body.transaction_hash, tx);
    assert.equal(accepted.body.amount_received, 25.01);
    assert.equal(accepted.body.payments[0].status, 'credited');
    const page = await (await fetch(`${p.url}/pay/${intent.intent_id}`)).text();
    assert.match(page, /data-status="settled"/);
    assert.match(page, /Payment received/);
    assert.doesNotMatch(page, /held-note/);
    const again = await act(intent.intent_id, tx, 'accept');
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, accepted.body);
    const successes = (await events(p, intent.intent_id)).filter((e) => e.type === 'payment.success');
    assert.equal(successes.length, 1);
    assert.equal(successes[0].data.accepted, true);
    assert.equal(successes[0].data.late, true);
    // The fetch says what the webhook said: accepted, late, by whom.
    const fetched = (await fetchIntent(intent.intent_id)).body;
    assert.deepEqual([fetched.status, fetched.accepted, fetched.late, fetched.settled_by, fetched.underpaid_by], ['settled', true, true, 'merchant', undefined]);
    // A credited payment is not "refunded" by a click.
    const refund = await act(intent.intent_id, tx, 'refunded');
    assert.equal(refund.status, 409);
    assert.equal(refund.body.code, 'PAYMENT_NOT_ACCEPTABLE');
    f = (await fetchIntent(intent.intent_id)).body;
    assert.deepEqual(f, accepted.body);
  });

  test('short payments: ₹499.00 for ₹499.37 settles inside a 1% tolerance; USDT 24.00 for 25.01 is held outside it', async (t) => {
    const { p, create, fetchIntent, act } = await setup(t, store, { UPI: { underpaymentTolerance: '1%' }, USDT_TRC20: { underpaymentTolerance: '1%', attributionWindow: 2 } });
    const upi = await create('short-upi', 499.37);
    assert.equal((await pay(p, 'UPI', 499, '622222222222')).kind, 'settled');
    const f = (await fetchIntent(upi.intent_id)).body;
    assert.equal(f.status, 'settled');
    assert.equal(f.amount_received, 499);
    assert.equal(f.payments[0].reason, 'underpaid');
    const success = (await events(p, upi.intent_id)).find((e) => e.type === 'payment.success')!;
    assert.equal(success.data.underpaid_by, 0.37);
    // Settled inside the tolerance: the fetch shows the shortfall too, and no one accepted anything.
    const refetched = (await fetchIntent(upi.intent_id)).body;
    assert.deepEqual([refetched.underpaid_by, refetched.accepted], [0.37, undefined]);

    const usdt = await create('short-usdt', 25.01, 'USDT_TRC20');
    assert.equal((await pay(p, 'USDT_TRC20', 24, 'b'.repeat(64))).kind, 'held');
    const g = (await fetchIntent(usdt.intent_id)).body;
    assert.equal(g.status, 'pending');
    assert.deepEqual(g.payments.map((x: any) => [x.amount, x.status, x.reason]), [[24, 'held', 'underpaid']]);
    assert.deepEqual((await events(p, usdt.intent_id)).map((e) => e.type), ['payment.held']);
    const heldData = (await events(p, usdt.intent_id))[0]!.data;
    assert.deepEqual([heldData.order_id, heldData.amount, heldData.pay_amount], ['short-usdt', 24, 25.01]);
    // Accepted short: the fetch of the settled intent says accepted and by how much it fell short.
    assert.equal((await act(usdt.intent_id, 'b'.repeat(64), 'accept')).status, 200);
    const h = (await fetchIntent(usdt.intent_id)).body;
    assert.deepEqual([h.status, h.accepted, h.settled_by, h.underpaid_by], ['settled', true, 'merchant', 1.01]);
  });

  test('a short payment is never attributed when two reserved amounts lie in its window, nor to a newer intent', async (t) => {
    const { p, create, fetchIntent } = await setup(t, store, { UPI: { underpaymentTolerance: '1%' } });
    const a = await create('amb-a', 300.4);
    const b = await create('amb-b', 300.6);
    const out = await pay(p, 'UPI', 300, '633333333333');
    assert.deepEqual([out.kind, (out as any).reason], ['unmatched', 'ambiguous']);
    for (const i of [a, b]) assert.deepEqual((await fetchIntent(i.intent_id)).body.payments, []);
    // The operator still sees it, as before.
    assert.equal((await p.app.payments.list({ unmatched: true })).some((x) => x.tx_ref === '633333333333'), true);
  });

  test('Solana: two partial payments with the same reference accumulate and settle; an over-payment settles and is shown', async (t) => {
    const { p, create, fetchIntent } = await setup(t, store);
    const intent = await create('sol-parts', 1.5, 'SOL');
    assert.equal((await pay(p, 'SOL', 1, 'sigPart1', intent.reference)).kind, 'credited');
    let f = (await fetchIntent(intent.intent_id)).body;
    assert.equal(f.status, 'pending');
    assert.equal(f.amount_received, 1);
    assert.equal((await pay(p, 'SOL', 0.5, 'sigPart2', intent.reference)).kind, 'settled');
    f = (await fetchIntent(intent.intent_id)).body;
    assert.equal(f.status, 'settled');
    assert.equal(f.transaction_hash, 'sigPart2');
    assert.equal(f.amount_received, 1.5);
    assert.deepEqual(f.payments.map((x: any) => [x.transaction_hash, x.amount, x.status]), [['sigPart1', 1, 'credited'], ['sigPart2', 0.5, 'credited']]);
    assert.equal((await events(p, intent.intent_id)).filter((e) => e.type === 'payment.success').length, 1);

    const over = await create('sol-over', 2, 'USDT_SOL');
    assert.equal((await pay(p, 'USDT_SOL', 2.5, 'sigOver', over.reference)).kind, 'settled');
    const g = (await fetchIntent(over.intent_id)).body;
    assert.equal(g.status, 'settled');
    assert.equal(g.amount_received, 2.5);
    assert.deepEqual(g.payments.map((x: any) => [x.amount, x.status, x.reason]), [[2.5, 'credited', 'overpaid']]);
    // A further payment with the reference after settlement is held for the merchant.
    assert.equal((await pay(p, 'USDT_SOL', 2, 'sigAfter', over.reference)).kind, 'held');
    assert.deepEqual((await fetchIntent(over.intent_id)).body.payments.map((x: any) => [x.status, x.reason]), [['credited', 'overpaid'], ['held', 'after_settlement']]);
  });

  test('a payment to a canceled intent is held (payment.held), then marked refunded (payment.refunded)', async (t) => {
    const { p, create, fetchIntent, act } = await setup(t, store);
    const intent = await create('cxl', 120.37);
    assert.equal((await p.api('POST', `/api/v1/intents/${intent.intent_id}/cancel`, { headers: (await p.merchant('other')).headers })).status, 404);
    const m = (await fetchIntent(intent.intent_id)).body;
    assert.equal(m.status, 'pending');
    await p.app.cancels.cancel(intent.intent_id, { actor: 'cli' });
    assert.equal((await pay(p, 'UPI', 120.37, '644444444444')).kind, 'held');
    let f = (await fetchIntent(intent.intent_id)).body;
    assert.equal(f.status, 'canceled');
    assert.deepEqual(f.payments.map((x: any) => [x.status, x.reason]), [['held', 'canceled']]);
    // The customer's checkout page says what arrived and what happens next.
    const page = await (await fetch(`${p.url}/pay/${intent.intent_id}`)).text();
    assert.match(page, /id="held-note"[^>]*>We received your payment of ₹120\.37 after this payment request was canceled\. The shop has been told/);
    const refunded = await act(intent.intent_id, '644444444444', 'refunded');
    assert.equal(refunded.status, 200, refunded.text);
    assert.deepEqual(refunded.body.payments.map((x: any) => [x.status, x.reason]), [['refunded', 'canceled']]);
    assert.equal((await act(intent.intent_id, '644444444444', 'refunded')).status, 200, 'again: the same answer');
    const accept = await act(intent.intent_id, '644444444444', 'accept');
    assert.equal(accept.status, 409);
    assert.equal(accept.body.code, 'PAYMENT_NOT_ACCEPTABLE');
    assert.deepEqual((await events(p, intent.intent_id)).map((e) => e.type), ['intent.canceled', 'payment.held', 'payment.refunded']);
    f = (await fetchIntent(intent.intent_id)).body;
    assert.equal(f.status, 'canceled');
  });

  test("another merchant's intent: accept and refunded answer 404; an unknown payment 409", async (t) => {
    const { p, create, act } = await setup(t, store);
    const intent = await create('mine', 130.37);
    await p.app.cancels.cancel(intent.intent_id, { actor: 'cli' });
    await pay(p, 'UPI', 130.37, '655555555555');
    const other = (await p.merchant('other shop')).headers;
    for (const verb of ['accept', 'refunded'] as const) {
      const r = await act(intent.intent_id, '655555555555', verb, other);
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'INTENT_NOT_FOUND');
    }
    const unknown = await act(intent.intent_id, '699999999999', 'accept');
    assert.equal(unknown.status, 409);
    assert.equal(unknown.body.code, 'PAYMENT_NOT_ACCEPTABLE');
  });

  test('the operator: payd payments list --held, payd payments accept <tx> --intent <id> (audited)', async (t) => {
    // The CLI runs on the real clock, so the intents are created on it too.
    const { p, create, fetchIntent } = await setup(t, store);
    (p.clock as ReturnType<typeof testClock>).set(Date.now());
    const intent = await create('cli-held', 150.37);
    await p.app.cancels.cancel(intent.intent_id, { actor: 'cli' });
    assert.equal((await pay(p, 'UPI', 150.37, '677777777777')).kind, 'held');
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    const listed = await payd(['payments', 'list', '--held', '--json'], { cwd: p.dir });
    assert.equal(listed.code, 0, listed.err);
    assert.deepEqual(listed.json().map((x: any) => [x.transaction_hash, x.order_id, x.intent_id, x.amount, x.asked, x.reason]), [['677777777777', 'cli-held', intent.intent_id, '150.37', '150.37', 'canceled']]);
    // The table a person reads names the order and the amount asked beside the amount paid.
    const table = await payd(['payments', 'list', '--held'], { cwd: p.dir });
    assert.match(table.out, /ORDER_ID .* ASKED/);
    assert.match(table.out, /677777777777 +cli-held +\S+ +UPI +150\.37 +150\.37 +canceled/);
    const accepted = await payd(['payments', 'accept', '677777777777', '--intent', intent.intent_id], { cwd: p.dir });
    assert.equal(accepted.code, 0, accepted.err);
    assert.match(accepted.out, /settled by 677777777777/);
    const f = (await fetchIntent(intent.intent_id)).body;
    assert.equal(f.status, 'settled');
    assert.equal(f.amount_received, 150.37);
    assert.equal((await payd(['payments', 'list', '--held', '--json'], { cwd: p.dir })).json().length, 0);
    const wrong = await payd(['payments', 'accept', '600000000000', '--intent', intent.intent_id], { cwd: p.dir });
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /no payment 600000000000/);
    const audit = await p.app.db.selectFrom('audit_log').select(['actor', 'action']).where('action', '=', 'payment.accept').execute();
    assert.deepEqual(audit, [{ actor: 'cli', action: 'payment.accept' }]);
  });

  test('the operator: payd payments refunded <tx> --intent <id> (audited; payment.refunded)', async (t) => {
    const { p, create, fetchIntent } = await setup(t, store);
    (p.clock as ReturnType<typeof testClock>).set(Date.now());
    const intent = await create('cli-refund', 160.37);
    await p.app.cancels.cancel(intent.intent_id, { actor: 'cli' });
    assert.equal((await pay(p, 'UPI', 160.37, '688888888888')).kind, 'held');
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    const refunded = await payd(['payments', 'refunded', '688888888888', '--intent', intent.intent_id], { cwd: p.dir });
    assert.equal(refunded.code, 0, refunded.err);
    assert.match(refunded.out, /688888888888 .*marked refunded/);
    assert.deepEqual((await fetchIntent(intent.intent_id)).body.payments.map((x: any) => [x.status, x.reason]), [['refunded', 'canceled']]);
    // The CLI's events carry the real clock, the test's the harness's (a second ahead): compared as a set.
    assert.deepEqual((await events(p, intent.intent_id)).map((e) => e.type).sort(), ['intent.canceled', 'payment.held', 'payment.refunded']);
    const audit = await p.app.db.selectFrom('audit_log').select(['actor', 'action']).where('action', '=', 'payment.refunded').execute();
    assert.deepEqual(audit, [{ actor: 'cli', action: 'payment.refunded' }]);
  });

  test('accept racing an automatic settlement, 30 times: one winner, one payment.success, the other answered 409 or held', async (t) => {
    const { p, create, fetchIntent, act } = await setup(t, store, { UPI: { attributionWindow: 1 } });
    const outcomes = { accept: 0, automatic: 0 };
    for (let i = 0; i < 30; i++) {
      // Two rupees apart: a whole payment within a rupee of another reserved amount would be ambiguous (rounding guard).
      const intent = await create(`race-${i}`, 400 + 2 * i + 0.37);
      const heldTx = `7${String(i).padStart(11, '0')}`;
      const exactTx = `8${String(i).padStart(11, '0')}`;
      assert.equal((await pay(p, 'UPI', 400 + 2 * i, heldTx)).kind, 'held');
      // Each side starts up to 5 ms after the other, in turn, so that both orders happen.
      const after = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const [accepted, automatic] = await Promise.all([
        after(i % 6).then(() => act(intent.intent_id, heldTx, 'accept')),
        after((i + 3) % 6).then(() => pay(p, 'UPI', 400 + 2 * i + 0.37, exactTx)),
      ]);
      const f = (await fetchIntent(intent.intent_id)).body;
      assert.equal(f.status, 'settled');
      const successes = (await events(p, intent.intent_id)).filter((e) => e.type === 'payment.success');
      assert.equal(successes.length, 1, `race ${i}: settled once`);
      if (accepted.status === 200) {
        outcomes.accept++;
        assert.equal(f.transaction_hash, heldTx);
        assert.equal(automatic.kind, 'held');
        assert.deepEqual(f.payments.map((x: any) => [x.transaction_hash, x.status, x.reason]), [[heldTx, 'credited', 'underpaid'], [exactTx, 'held', 'after_settlement']]);
      } else {
        outcomes.automatic++;
        assert.equal(accepted.status, 409, accepted.text);
        assert.equal(accepted.body.code, 'PAYMENT_NOT_ACCEPTABLE');
        assert.equal(automatic.kind, 'settled');
        assert.equal(f.transaction_hash, exactTx);
        assert.deepEqual(f.payments.map((x: any) => [x.transaction_hash, x.status]), [[heldTx, 'held'], [exactTx, 'credited']]);
      }
    }
    assert.equal(outcomes.accept + outcomes.automatic, 30);
    // A race happened only if each side won at least once.
    assert.ok(outcomes.accept > 0 && outcomes.automatic > 0, `accept won ${outcomes.accept}, the automatic settlement ${outcomes.automatic}`);
  });
});

// Open intents through the daemon's HTTP API and checkout, on both stores: created without a
// currency, the customer picks a method on the checkout (a plain form post), pays it, and the
// intent settles once in that currency with its signed webhook; a switch of method before paying,
// a payment on the abandoned reservation afterwards (held after_settlement), the bound on
// reservations per intent and the per-IP limit on choice floods. Rates come from the rate-source
// fakes (test/fakes/rates/), payments enter the ledger as a method's source hands them over.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signatureFor } from '../../src/webhooks/sign.ts';
import { parseDecimal } from '../../src/domain/money.ts';
import { startFakeRateSources } from '../fakes/rates/server.ts';
import { RECEIVERS, startPayd, testClock, type PaydHarness, type TestClock } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';

let fakes: Awaited<ReturnType<typeof startFakeRateSources>>;
before(async () => {
  fakes = await startFakeRateSources({ coindcx: { 'USDT/INR': '83.75' }, kraken: { 'SOL/USD': '150.00000' }, frankfurter: { 'USD/INR': '84' } });
});
after(() => fakes?.close());

async function start(store: TestStore, o: { workers?: boolean; publicRateLimit?: { perSecond: number; burst: number }; clock?: TestClock; methods?: Record<string, unknown> } = {}): Promise<PaydHarness> {
  const pricing = {
    refreshSeconds: 3600,
    quoteSeconds: 600,
    pairs: { 'USDT/INR': ['coindcx'], 'SOL/USD': ['kraken'], 'USD/INR': ['frankfurter'] },
    sources: { coindcx: { baseUrl: fakes.sources.coindcx.url }, kraken: { baseUrl: fakes.sources.kraken.url }, frankfurter: { baseUrl: fakes.sources.frankfurter.url } },
  };
  const server = o.publicRateLimit ? { publicRateLimit: o.publicRateLimit } : undefined;
  const p = await startPayd({ store, config: { pricing, ...(server ? { server } : {}), ...(o.methods ? { methods: o.methods } : {}) }, workers: o.workers ?? false, ...(o.clock ? { clock: o.clock } : {}) });
  await p.app.pricing.refresher!.refreshOnce(new AbortController().signal);
  return p;
}

const DECIMALS: Record<string, number> = { UPI: 2, USDT_TRC20: 6, SOL: 9 };
const minor = (currency: string, amount: number | string) => {
  const parsed = parseDecimal(String(amount), DECIMALS[currency]);
  assert.ok(parsed.ok);
  return parsed.minor;
};

/** The customer's click on the checkout: the form post a browser sends. */
async function choose(p: PaydHarness, intentId: string, currency: string) {
  return fetch(`${p.url}/pay/${intentId}/choose`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ currency }), redirect: 'manual' });
}

/** A payment to the intent's current choice (or the given one) as its method's source hands it to the ledger. */
async function pay(p: PaydHarness, to: { currency: string; receiver: string; payAmount: bigint; reference?: string }, txRef: string) {
  const now = p.clock.now();
  return p.app.ledger.ingest({ method: to.currency, receiver: to.receiver, amountMinor: to.payAmount, txRef, occurredAt: now, observedAt: now, source: 'manual', ...(to.reference ? { references: [to.reference] } : {}) });
}

async function fetchIntent(p: PaydHarness, headers: Record<string, string>, id: string) {
  const res = await p.api('GET', `/api/v1/intents/${id}`, { headers });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const OPEN = ['UPI', 'USDT_TRC20', 'SOL'];

forEachStore((store) => {
  test(`${store.kind}: an open intent priced in INR; the customer picks USDT on TRON, pays, it settles in USDT_TRC20 with a signed webhook`, async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const p = await start(store, { workers: true });
    t.after(() => p.close());
    const m = await p.merchant('Saree House', receiver.url);

    const created = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 4999, methods: OPEN, order_id: 'ORD-OPEN-1' } });
    assert.equal(created.status, 200, created.text);
    const c = created.body;
    assert.equal(c.status, 'pending');
    assert.equal(c.currency, null, 'no rail until the customer chooses');
    assert.equal(c.pay_amount, null);
    assert.equal(c.payment_uri, null);
    assert.deepEqual(c.price, { amount: 4999, currency: 'INR' });
    assert.deepEqual(
      c.options.map((o: { currency: string; group: string; network: string | null; pay_amount: number | null }) => [o.currency, o.group, o.network, o.pay_amount]),
      [
        ['UPI', 'UPI', null, null],
        ['USDT_TRC20', 'USDT', 'TRON (TRC-20)', null],
        ['SOL', 'SOL', 'Solana', null],
      ],
    );
    assert.equal(c.checkout_url, `https://pay.example.com/pay/${c.intent_id}`);
    // A retried create of the same order returns the same intent.
    const again = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 4999, methods: OPEN, order_id: 'ORD-OPEN-1' } });
    assert.equal(again.body.intent_id, c.intent_id);

    // The checkout offers the choice, grouped, each with what it would cost now.
    const page = await (await fetch(`${p.url}/pay/${c.intent_id}`)).text();
    assert.match(page, /How do you want to pay\?/);
    assert.match(page, /value="USDT_TRC20"[^>]*>\s*<span class="choice-name">TRON \(TRC-20\)<\/span>\s*<span class="choice-cost">about 59\.69 USDT<\/span>/);
    assert.match(page, /<span class="choice-cost">₹4,999\.00<\/span>/);

    const chose = await choose(p, c.intent_id, 'USDT_TRC20');
    assert.equal(chose.status, 303);
    assert.equal(chose.headers.get('location'), `/pay/${c.intent_id}`);
    const chosen = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal(chosen.currency, 'USDT_TRC20');
    // ₹4,999 at 83.75 ₹/USDT, rounded up to the cent, plus its unique offset.
    assert.equal(chosen.amount, 59.69);
    assert.ok(chosen.pay_amount >= 59.69 && chosen.pay_amount < 59.8, String(chosen.pay_amount));
    assert.equal(chosen.quote.rate, 83.75);
    assert.equal(chosen.options.find((o: { currency: string }) => o.currency === 'USDT_TRC20').pay_amount, chosen.pay_amount);
    // The page now shows the QR and link of that method, and a way back to the choice.
    const payPage = await (await fetch(`${p.url}/pay/${c.intent_id}`)).text();
    assert.match(payPage, /id="pay-amount"/);
    assert.match(payPage, /id="change-method"/);

    const outcome = await pay(p, { currency: 'USDT_TRC20', receiver: chosen.payment_address, payAmount: minor('USDT_TRC20', chosen.pay_amount) }, 'a'.repeat(64));
    assert.equal(outcome.kind, 'settled');
    const settled = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal(settled.status, 'settled');
    assert.equal(settled.currency, 'USDT_TRC20');
    const listed = await p.api('GET', '/api/v1/intents?currency=USDT_TRC20', { headers: m.headers });
    assert.deepEqual(listed.body.data.map((i: { intent_id: string }) => i.intent_id), [c.intent_id]);

    const [hook] = await receiver.waitFor(1, 15_000);
    const sig = signatureFor(m.webhookSecret, String(hook.headers['webhook-id']), Number(hook.headers['webhook-timestamp']), hook.body);
    assert.ok(String(hook.headers['webhook-signature']).split(' ').includes(sig), 'signed with the merchant secret');
    const event = JSON.parse(hook.body);
    assert.equal(event.type, 'payment.success');
    assert.equal(event.data.intent_id, c.intent_id);
    assert.equal(event.data.currency, 'USDT_TRC20');
    const feed = await p.api('GET', '/api/v1/events', { headers: m.headers });
    assert.equal(feed.status, 200, feed.text);
    assert.deepEqual(feed.body.data.filter((e: { type: string }) => e.type === 'payment.success').map((e: { data: { currency: string } }) => e.data.currency), ['USDT_TRC20']);
  });

  test(`${store.kind}: the customer switches from UPI to SOL and pays SOL; a later payment on the abandoned UPI amount is held after_settlement`, async (t) => {
    const p = await start(store);
    t.after(() => p.close());
    const m = await p.merchant();
    const c = (await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { price: { amount: 1500, currency: 'INR' }, methods: 'all', order_id: 'ORD-SWITCH' } })).body;
    assert.equal(c.currency, null);
    assert.ok(c.options.length >= 3, 'every enabled method that can price it');

    assert.equal((await choose(p, c.intent_id, 'UPI')).status, 303);
    const upi = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal(upi.currency, 'UPI');
    assert.ok(upi.pay_amount > 1500 && upi.pay_amount < 1501, String(upi.pay_amount));
    assert.equal((await choose(p, c.intent_id, 'SOL')).status, 303);
    const sol = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal(sol.currency, 'SOL');
    // ₹1,500 at 150 $/SOL × 84 ₹/$.
    assert.ok(sol.amount >= 0.119 && sol.amount < 0.12, String(sol.amount));
    assert.equal(sol.options.find((o: { currency: string }) => o.currency === 'UPI').pay_amount, upi.pay_amount, 'the UPI amount stays reserved for this intent');

    const paid = await pay(p, { currency: 'SOL', receiver: sol.payment_address, payAmount: minor('SOL', sol.pay_amount), reference: sol.reference }, '5'.repeat(87));
    assert.equal(paid.kind, 'settled');
    const settled = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal(settled.status, 'settled');
    assert.equal(settled.currency, 'SOL');

    // The customer's UPI app paid the abandoned amount as well: the intent is not paid twice.
    const late = await pay(p, { currency: 'UPI', receiver: upi.payment_address, payAmount: minor('UPI', upi.pay_amount) }, '512345678901');
    assert.equal(late.kind, 'held');
    assert.equal(late.kind === 'held' && late.reason, 'after_settlement');
    const after = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal(after.status, 'settled');
    assert.equal(after.currency, 'SOL');
    const held = after.payments.find((x: { status: string }) => x.status === 'held');
    assert.deepEqual({ amount: held.amount, currency: held.currency, reason: held.reason }, { amount: upi.pay_amount, currency: 'UPI', reason: 'after_settlement' });
    assert.equal(after.amount_received, sol.pay_amount, 'only the SOL payment is credited');
  });

  test(`${store.kind}: a payment on the UPI amount the customer left for SOL still settles the intent, in UPI`, async (t) => {
    const p = await start(store);
    t.after(() => p.close());
    const m = await p.merchant();
    const c = (await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 799, methods: ['UPI', 'SOL'], order_id: 'ORD-BACK' } })).body;
    assert.equal((await choose(p, c.intent_id, 'UPI')).status, 303);
    const upi = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal((await choose(p, c.intent_id, 'SOL')).status, 303);
    const paid = await pay(p, { currency: 'UPI', receiver: upi.payment_address, payAmount: minor('UPI', upi.pay_amount) }, '612345678902');
    assert.equal(paid.kind, 'settled');
    const settled = await fetchIntent(p, m.headers, c.intent_id);
    assert.deepEqual([settled.status, settled.currency, settled.pay_amount, settled.amount_received], ['settled', 'UPI', upi.pay_amount, upi.pay_amount]);
  });

  test(`${store.kind}: each choice locks its quote: after the rate moves, a method chosen before keeps its amount and rate; one chosen after costs the new rate`, async (t) => {
    const p = await start(store);
    t.after(() => p.close());
    const m = await p.merchant();
    const c = (await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 4999, methods: ['USDT_TRC20', 'USDT_SOL'], order_id: 'ORD-LOCK' } })).body;
    assert.equal((await choose(p, c.intent_id, 'USDT_TRC20')).status, 303);
    const tron = await fetchIntent(p, m.headers, c.intent_id);
    assert.deepEqual([tron.amount, tron.quote.rate], [59.69, 83.75]);

    // USDT moves from ₹83.75 to ₹84.00.
    const rates = fakes.sources.coindcx.state.rates;
    t.after(() => void (rates['USDT/INR'] = '83.75'));
    rates['USDT/INR'] = '84.00';
    await p.app.pricing.refresher!.refreshOnce(new AbortController().signal);
    const kept = await fetchIntent(p, m.headers, c.intent_id);
    assert.deepEqual([kept.currency, kept.amount, kept.pay_amount, kept.quote.rate], ['USDT_TRC20', 59.69, tron.pay_amount, 83.75], 'the choice made keeps its quote');
    assert.match(await (await fetch(`${p.url}/pay/${c.intent_id}?choose`)).text(), /value="USDT_SOL"[^>]*>\s*<span class="choice-name">[^<]+<\/span>\s*<span class="choice-cost">about 59\.52 USDT<\/span>/, 'the other option at the new rate');

    assert.equal((await choose(p, c.intent_id, 'USDT_SOL')).status, 303);
    const sol = await fetchIntent(p, m.headers, c.intent_id);
    assert.deepEqual([sol.currency, sol.amount, sol.quote.rate], ['USDT_SOL', 59.52, 84]);
    assert.equal((await choose(p, c.intent_id, 'USDT_TRC20')).status, 303);
    const back = await fetchIntent(p, m.headers, c.intent_id);
    assert.deepEqual([back.currency, back.amount, back.pay_amount, back.quote.rate], ['USDT_TRC20', 59.69, tron.pay_amount, 83.75], 'back to the first reservation, at its own quote');
  });

  test(`${store.kind}: each intent reserves at most 3 methods; choosing one again returns to its amount; floods of choices meet 429`, async (t) => {
    const p = await start(store, { publicRateLimit: { perSecond: 0.01, burst: 6 } });
    t.after(() => p.close());
    const m = await p.merchant();
    const c = (await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 2500, methods: ['UPI', 'USDT_TRC20', 'USDT_SOL', 'SOL'], order_id: 'ORD-BOUND' } })).body;
    for (const currency of ['UPI', 'USDT_TRC20', 'SOL']) assert.equal((await choose(p, c.intent_id, currency)).status, 303, currency);
    const fourth = await choose(p, c.intent_id, 'USDT_SOL');
    assert.equal(fourth.status, 409);
    assert.match(await fourth.text(), /already reserved 3 methods/);
    const before = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal((await choose(p, c.intent_id, 'UPI')).status, 303, 'back to a method chosen before');
    const back = await fetchIntent(p, m.headers, c.intent_id);
    assert.equal(back.currency, 'UPI');
    assert.equal(back.pay_amount, before.options.find((o: { currency: string }) => o.currency === 'UPI').pay_amount, 'the same reservation, no new one');
    // A method the intent does not offer, and nonsense, are refused without a reservation.
    assert.equal((await choose(p, c.intent_id, 'USDC_SOL')).status, 409);

    // The burst of 6 is spent: the next anonymous clicks are turned away before any work.
    let limited = 0;
    for (let i = 0; i < 10; i++) {
      const res = await choose(p, c.intent_id, 'SOL');
      await res.arrayBuffer();
      if (res.status === 429) limited++;
    }
    assert.equal(limited, 10, `${limited} of 10 clicks limited`);
    const held = await p.app.db.selectFrom('amount_reservations').select('method').where('intent_id', '=', c.intent_id).execute();
    assert.deepEqual(held.map((r) => r.method).sort(), ['SOL', 'UPI', 'USDT_TRC20']);
  });

  test(`${store.kind}: an open intent is canceled and expires as any intent, before or after a choice; a payment on its reservation afterwards is held, a choice afterwards refused`, async (t) => {
    const clock = testClock();
    const p = await start(store, { clock });
    t.after(() => p.close());
    const m = await p.merchant();
    const create = async (order_id: string) => (await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 600, methods: ['UPI', 'SOL'], order_id } })).body;
    const cancel = (id: string) => p.api('POST', `/api/v1/intents/${id}/cancel`, { headers: m.headers });
    const typesOf = async (id: string) => {
      const feed = await p.api('GET', '/api/v1/events', { headers: m.headers });
      assert.equal(feed.status, 200, feed.text);
      return feed.body.data.filter((e: { data: { intent_id: string } }) => e.data.intent_id === id).map((e: { type: string }) => e.type);
    };

    // Canceled before the customer chose: no rail, nothing reserved, and the checkout offers nothing to pay.
    const unchosen = await create('ORD-CANCEL-NONE');
    const canceled = await cancel(unchosen.intent_id);
    assert.equal(canceled.status, 200, canceled.text);
    assert.deepEqual([canceled.body.status, canceled.body.currency, canceled.body.pay_amount], ['canceled', null, null]);
    const closed = await (await fetch(`${p.url}/pay/${unchosen.intent_id}`)).text();
    assert.match(closed, /This payment request is canceled\./);
    assert.doesNotMatch(closed, /value="UPI"/);
    assert.equal((await choose(p, unchosen.intent_id, 'UPI')).status, 409);
    assert.equal((await p.app.db.selectFrom('amount_reservations').select('method').where('intent_id', '=', unchosen.intent_id).execute()).length, 0, 'no amount reserved');
    assert.deepEqual(await typesOf(unchosen.intent_id), ['intent.canceled']);

    // Canceled after UPI then SOL: money still sent to the abandoned UPI amount is held on it, reason canceled.
    const switched = await create('ORD-CANCEL-SWITCHED');
    assert.equal((await choose(p, switched.intent_id, 'UPI')).status, 303);
    const upi = await fetchIntent(p, m.headers, switched.intent_id);
    assert.equal((await choose(p, switched.intent_id, 'SOL')).status, 303);
    assert.equal((await cancel(switched.intent_id)).body.status, 'canceled');
    assert.equal((await choose(p, switched.intent_id, 'UPI')).status, 409, 'no way back once canceled');
    clock.advance(1000);
    const late = await pay(p, { currency: 'UPI', receiver: upi.payment_address, payAmount: minor('UPI', upi.pay_amount) }, '712345678901');
    assert.deepEqual([late.kind, late.kind === 'held' && late.reason], ['held', 'canceled']);
    const afterCancel = await fetchIntent(p, m.headers, switched.intent_id);
    assert.equal(afterCancel.status, 'canceled');
    assert.deepEqual(afterCancel.payments.map((x: { status: string; currency: string; reason: string }) => [x.status, x.currency, x.reason]), [['held', 'UPI', 'canceled']]);
    assert.deepEqual(await typesOf(switched.intent_id), ['intent.canceled', 'payment.held']);

    // Expired after a choice: the page says so and no other method can be chosen; the exact amount
    // paid late settles it, as any intent's does by default (methods.<M>.latePayments: settle).
    const expiring = await create('ORD-EXPIRE');
    const never = await create('ORD-EXPIRE-NONE');
    assert.equal((await choose(p, expiring.intent_id, 'UPI')).status, 303);
    const chosen = await fetchIntent(p, m.headers, expiring.intent_id);
    clock.set(Math.max(Date.parse(chosen.expires_at), Date.parse(never.expires_at)) + 1000);
    await p.app.intents.expireDue();
    const expired = await fetchIntent(p, m.headers, expiring.intent_id);
    assert.deepEqual([expired.status, expired.currency], ['expired', 'UPI']);
    assert.equal((await choose(p, expiring.intent_id, 'SOL')).status, 409);
    assert.match(await (await fetch(`${p.url}/pay/${expiring.intent_id}`)).text(), /data-status="expired"/);
    const tooLate = await pay(p, { currency: 'UPI', receiver: chosen.payment_address, payAmount: minor('UPI', chosen.pay_amount) }, '712345678902');
    assert.equal(tooLate.kind, 'settled');
    const lateSettled = await fetchIntent(p, m.headers, expiring.intent_id);
    assert.deepEqual([lateSettled.status, lateSettled.currency, lateSettled.amount_received], ['settled', 'UPI', chosen.pay_amount]);
    assert.deepEqual(await typesOf(expiring.intent_id), ['intent.expired', 'payment.success']);

    // One that expired before any choice: expired, with no rail.
    const neverExpired = await fetchIntent(p, m.headers, never.intent_id);
    assert.deepEqual([neverExpired.status, neverExpired.currency], ['expired', null]);
    assert.equal((await choose(p, never.intent_id, 'UPI')).status, 409);
    assert.match(await (await fetch(`${p.url}/pay/${never.intent_id}`)).text(), /This payment request is expired\./);
  });

  test(`${store.kind}: methods "all" offers every enabled method that can take the price and leaves out the rest; a named one that cannot is refused`, async (t) => {
    const p = await start(store);
    t.after(() => p.close());
    const m = await p.merchant();
    const create = (body: Record<string, unknown>) => p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body });
    const all = await create({ price: { amount: '12.50', currency: 'USD' }, methods: 'all', order_id: 'ORD-ALL' });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.price, { amount: 12.5, currency: 'USD' });
    assert.deepEqual(all.body.options.map((o: { currency: string }) => o.currency), ['UPI', 'USDT_TRC20', 'USDT_SOL', 'SOL']);
    // ₹150,000 is above UPI's maxAmount here (₹100,000): "all" offers the others only.
    const big = await create({ amount: 150000, methods: 'all', order_id: 'ORD-ALL-BIG' });
    assert.equal(big.status, 200, big.text);
    assert.deepEqual(big.body.options.map((o: { currency: string }) => o.currency), ['USDT_TRC20', 'USDT_SOL', 'SOL']);
    const named = await create({ amount: 150000, methods: ['UPI', 'SOL'], order_id: 'ORD-NAMED-BIG' });
    assert.equal(named.status, 400, named.text);
    assert.equal(named.body.code, 'AMOUNT_OUT_OF_RANGE');
  });

  test(`${store.kind}: the checkout groups the choice as payers think: UPI; USDT → TRON, Solana (SPL); USDC → Solana (SPL); SOL, each with what it costs now`, async (t) => {
    const p = await start(store, { methods: { USDC_SOL: { wallet: RECEIVERS.USDC_SOL, rpcUrl: 'http://127.0.0.1:1' } } });
    t.after(() => p.close());
    const m = await p.merchant();
    const c = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 4999, methods: 'all', order_id: 'ORD-GROUPS' } });
    assert.equal(c.status, 200, c.text);
    const page = await (await fetch(`${p.url}/pay/${c.body.intent_id}`)).text();
    const groups = [...page.matchAll(/<fieldset class="choice-group" data-group="([^"]+)">([\s\S]*?)<\/fieldset>/g)].map(([, group, inner]) => [
      group,
      [...inner!.matchAll(/value="([^"]+)"[^>]*>\s*<span class="choice-name">([^<]+)<\/span>\s*<span class="choice-cost">([^<]+)<\/span>/g)].map(([, currency, name, cost]) => `${currency}: ${name}, ${cost}`),
    ]);
    assert.deepEqual(groups, [
      ['UPI', ['UPI: UPI, ₹4,999.00']],
      ['USDT', ['USDT_TRC20: TRON (TRC-20), about 59.69 USDT', 'USDT_SOL: Solana (SPL), about 59.69 USDT']],
      // Pegged 1:1 to the dollar: ₹4,999 at 84 ₹/$, rounded up to the cent.
      ['USDC', ['USDC_SOL: Solana (SPL), about 59.52 USDC']],
      // ₹4,999 at 150 $/SOL × 84 ₹/$.
      ['SOL', ['SOL: Solana, about 0.396747 SOL']],
    ]);
  });

  test(`${store.kind}: without currency and without methods the create is today's 400; both at once is refused too`, async (t) => {
    const p = await start(store);
    t.after(() => p.close());
    const m = await p.merchant();
    const forgot = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 10, order_id: 'ORD-X' } });
    assert.equal(forgot.status, 400);
    assert.deepEqual([forgot.body.code, forgot.body.detail], ['INVALID_REQUEST', 'currency is required']);
    const both = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 10, currency: 'UPI', methods: ['UPI'], order_id: 'ORD-Y' } });
    assert.equal(both.status, 400);
    assert.equal(both.body.detail, 'give either currency or methods, not both');
    const unknown = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 10, methods: ['UPI', 'DOGE'], order_id: 'ORD-Z' } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'METHOD_UNSUPPORTED');
    // The seed's request with currency is answered as before.
    const fixed = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 10, currency: 'UPI', order_id: 'ORD-W' } });
    assert.equal(fixed.status, 200, fixed.text);
    assert.equal(fixed.body.currency, 'UPI');
    assert.equal(fixed.body.options, undefined);
  });
});

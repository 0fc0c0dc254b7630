import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sandboxReceivers } from '../../src/methods/sandbox/receivers.ts';
import { payd } from '../helpers/cli.ts';
import { startPayd, testClock, type PaydHarness, type TestClock } from '../helpers/payd.ts';
import { createResponseChecker } from '../helpers/openapi.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';
import { startFakeRateSources, type FakeSourceName } from '../fakes/rates/server.ts';

// Intents priced in INR/USD/EUR, converted at a locked quote from rate sources the
// worker leader refreshes (here: fakes of each source on loopback, refreshed by hand).
const checker = createResponseChecker();
let fakes: Awaited<ReturnType<typeof startFakeRateSources>>;
const RATES: Partial<Record<FakeSourceName, Record<string, string>>> = {
  coindcx: { 'USDT/INR': '83.75' },
  wazirx: { 'USDT/INR': '83.80' },
  coingecko: { 'USDT/INR': '83.70' },
  kraken: { 'SOL/USD': '150.00000' },
  coinbase: { 'SOL/USD': '150.10' },
  binance: { 'SOL/USDT': '149.95000000' },
  frankfurter: { 'USD/INR': '84', 'USD/EUR': '0.92' },
};
before(async () => {
  fakes = await startFakeRateSources(RATES);
});
after(() => fakes.close());

const MAX_AGE_S = 300;
function pricingConfig() {
  const sources = Object.fromEntries(Object.entries(fakes.sources).map(([name, f]) => [name, { baseUrl: f.url, ...(name === 'coingecko' ? { apiKey: 'demo-key' } : {}) }]));
  return {
    maxAgeSeconds: MAX_AGE_S,
    refreshSeconds: 3600,
    maxSpreadPercent: 3,
    maxChangePercent: 5,
    quoteSeconds: 600,
    pairs: { 'USDT/INR': ['coindcx', 'wazirx', 'coingecko'], 'SOL/USD': ['kraken', 'coinbase', 'binance'], 'USD/INR': ['frankfurter'], 'USD/EUR': ['frankfurter'] },
    sources,
  };
}

async function start(store: TestStore, clock: TestClock, extra: { workers?: boolean; pairs?: Record<string, string[]> } = {}): Promise<PaydHarness> {
  for (const f of Object.values(fakes.sources)) f.set('ok');
  const pricing = { ...pricingConfig(), ...(extra.pairs ? { pairs: extra.pairs } : {}) };
  return startPayd({ config: { ...(await store.config()), pricing }, clock, workers: extra.workers ?? false });
}

const refresh = (p: PaydHarness) => p.app.pricing.refresher!.refreshOnce(new AbortController().signal);
const create = (p: PaydHarness, headers: Record<string, string>, body: Record<string, unknown>) => p.api('POST', '/api/v1/intents/create-payment', { body, headers });
const requests = () => Object.values(fakes.sources).reduce((n, f) => n + f.state.requests.length, 0);

forEachStore((store) => {
  test('a price in INR, USD or EUR for every method: converted at the quote, rounded up, and recorded on the intent', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:02:00.000Z'));
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    const asked = requests();
    await refresh(p);
    // One request per source per pair per refresh: 3 + 3 + 1 + 1.
    assert.equal(requests() - asked, 8);

    const price = { amount: 1999, currency: 'INR' };
    const usdt = await create(p, m.headers, { price, currency: 'USDT_TRC20', order_id: 'usdt-trc20' });
    assert.equal(usdt.status, 200, usdt.text);
    // ₹1,999 / 83.75 = 23.8686… → 23.87 USDT (rounded up to the 0.01 step).
    assert.equal(usdt.body.amount, 23.87);
    assert.equal(usdt.body.pay_amount, 23.87);
    assert.deepEqual(usdt.body.price, { amount: 1999, currency: 'INR' });
    assert.deepEqual(usdt.body.quote, { rate: 83.75, source: 'coindcx', quoted_at: '2026-11-26T09:02:00.000Z', valid_until: '2026-11-26T09:12:00.000Z' });
    // The quote holds 600 s (pricing.quoteSeconds): the intent expires with it.
    assert.equal(usdt.body.expires_at, '2026-11-26T09:12:00.000Z');
    assert.match(usdt.text, /"rate":83\.75,/);

    const usdtSol = await create(p, m.headers, { price, currency: 'USDT_SOL', order_id: 'usdt-sol' });
    assert.equal(usdtSol.body.amount, 23.87);
    assert.equal(usdtSol.body.quote.source, 'coindcx');
    // SOL/INR = SOL/USD (Kraken) × USD/INR (ECB via Frankfurter) = 150 × 84 = 12600; ₹1,999 → 0.158650793… → 0.158651 SOL.
    const sol = await create(p, m.headers, { price, currency: 'SOL', order_id: 'sol' });
    assert.equal(sol.status, 200, sol.text);
    assert.equal(sol.body.amount, 0.158651);
    assert.deepEqual([sol.body.quote.rate, sol.body.quote.source], [12600, 'kraken×frankfurter']);
    // UPI in INR is the identity: no source is asked.
    const before = requests();
    const upi = await create(p, m.headers, { price: { amount: 1999.5, currency: 'INR' }, currency: 'UPI', order_id: 'upi' });
    assert.deepEqual([upi.body.amount, upi.body.quote.rate, upi.body.quote.source], [1999.5, 1, 'identity']);
    // USD priced in USDT: the peg (1 USDT = 1 USD unless pricing.pegs turns it off).
    const peg = await create(p, m.headers, { price: { amount: 25, currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'usd' });
    assert.deepEqual([peg.body.amount, peg.body.quote.source], [25, 'peg']);
    // EUR: SOL/EUR = 150 × 0.92 = 138; €50 → 0.362318840… → 0.362319 SOL.
    const eur = await create(p, m.headers, { price: { amount: 50, currency: 'EUR' }, currency: 'SOL', order_id: 'eur' });
    assert.deepEqual([eur.body.amount, eur.body.quote.rate, eur.body.quote.source], [0.362319, 138, 'kraken×frankfurter']);
    // UPI priced in USD: the inverse of USD/INR, $10 → ₹840.00 exactly.
    const upiUsd = await create(p, m.headers, { price: { amount: 10, currency: 'USD' }, currency: 'UPI', order_id: 'upi-usd' });
    assert.deepEqual([upiUsd.body.amount, upiUsd.body.quote.source], [840, 'frankfurter']);
    // Creates never ask a source.
    assert.equal(requests(), before);

    // Fetch, list and the stored row carry the price and the quote.
    const fetched = await p.api('GET', `/api/v1/intents/${usdt.body.intent_id}`, { headers: m.headers });
    assert.deepEqual([fetched.body.price, fetched.body.quote], [usdt.body.price, usdt.body.quote]);
    const list = await p.api('GET', '/api/v1/intents?order_id=sol', { headers: m.headers });
    assert.deepEqual(list.body.data[0].quote, sol.body.quote);
    const row = await p.app.db.selectFrom('intents').selectAll().where('id', '=', usdt.body.intent_id).executeTakeFirstOrThrow();
    assert.deepEqual([row.price_amount, row.price_currency, row.quote_rate, row.quote_source, Number(row.amount_minor)], ['1999', 'INR', '83.75', 'coindcx', 23_870_000]);
    // An intent created with `amount` has neither.
    const plain = await create(p, m.headers, { amount: 10, currency: 'USDT_TRC20', order_id: 'plain' });
    assert.equal('price' in plain.body || 'quote' in plain.body, false);

    // A retried create returns its intent even after the rate moved; another price is a conflict.
    fakes.sources.coindcx.state.rates['USDT/INR'] = '80';
    await refresh(p);
    const again = await create(p, m.headers, { price, currency: 'USDT_TRC20', order_id: 'usdt-trc20' });
    assert.deepEqual([again.status, again.body.intent_id, again.body.amount], [200, usdt.body.intent_id, 23.87]);
    assert.equal((await create(p, m.headers, { price: { amount: 2000, currency: 'INR' }, currency: 'USDT_TRC20', order_id: 'usdt-trc20' })).body.code, 'ORDER_ID_CONFLICT');
    fakes.sources.coindcx.state.rates['USDT/INR'] = '83.75';

    // Both, neither, an unknown fiat, too many decimals: 400 INVALID_REQUEST.
    for (const body of [
      { amount: 10, price, currency: 'SOL', order_id: 'x' },
      { currency: 'SOL', order_id: 'x' },
      { price: { amount: 10, currency: 'GBP' }, currency: 'SOL', order_id: 'x' },
      { price: { amount: 10.001, currency: 'INR' }, currency: 'SOL', order_id: 'x' },
      { price: { amount: -1, currency: 'INR' }, currency: 'SOL', order_id: 'x' },
    ]) {
      const r = await create(p, m.headers, body);
      assert.deepEqual([r.status, r.body.code], [400, 'INVALID_REQUEST'], JSON.stringify(body));
    }
  });

  test('a source down: the median of the others; all down: 503 RATE_UNAVAILABLE (other methods unaffected); recovered', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    const price = { amount: 1999, currency: 'INR' };
    let n = 0;
    const priced = () => create(p, m.headers, { price, currency: 'USDT_TRC20', order_id: `o-${n++}` });
    await refresh(p);
    assert.equal((await priced()).body.quote.source, 'coindcx');

    // CoinDCX down (502 page): its last rate counts until it is older than maxAgeSeconds, then the median of the other two.
    fakes.sources.coindcx.set('down');
    clock.advance(60_000);
    await refresh(p);
    assert.equal((await priced()).body.quote.source, 'coindcx');
    clock.advance(MAX_AGE_S * 1000);
    await refresh(p);
    const fallback = await priced();
    // (83.80 + 83.70) / 2 = 83.75: ₹1,999 → 23.87 USDT.
    assert.deepEqual([fallback.body.quote.source, fallback.body.quote.rate, fallback.body.amount], ['wazirx+coingecko', 83.75, 23.87]);

    // Every USDT/INR source down (502, 429 with Retry-After, CoinGecko's 500): no rate, never a stale one.
    // WazirX documents no rate limit: its fake's 429 body and Retry-After are invented (test/fakes/rates/wazirx.ts),
    // a stand-in for any source that asks for quiet; what is asserted is payd's handling, not WazirX's wording.
    fakes.sources.wazirx.set('rate-limited');
    fakes.sources.coingecko.set('error');
    clock.advance(MAX_AGE_S * 1000 + 1000);
    await refresh(p);
    const refused = await priced();
    assert.deepEqual([refused.status, refused.body.code], [503, 'RATE_UNAVAILABLE']);
    assert.equal(refused.headers.get('retry-after'), '3600');
    assert.match(refused.body.detail, /no fresh USDT\/INR rate/);
    // Other pairs, methods and plain amounts keep working.
    assert.equal((await create(p, m.headers, { price, currency: 'UPI', order_id: 'upi' })).status, 200);
    assert.equal((await create(p, m.headers, { price, currency: 'SOL', order_id: 'sol' })).status, 200);
    assert.equal((await create(p, m.headers, { amount: 23.87, currency: 'USDT_TRC20', order_id: 'plain' })).status, 200);
    // /readyz notes the pair but stays ready (only creates priced in it are refused).
    const ready = await fetch(`${p.url}/readyz`);
    const readyBody = (await ready.json()) as { rates?: { stale: string[] } };
    assert.equal(ready.status, 200);
    assert.deepEqual(readyBody.rates, { stale: ['USDT/INR'] });
    const status = await p.app.pricing.book.status();
    const usdtInr = status.find((s) => s.pair === 'USDT/INR')!;
    assert.deepEqual(usdtInr.sources.map((s) => [s.source, s.failures > 0]), [['coindcx', true], ['wazirx', true], ['coingecko', true]]);
    assert.match(usdtInr.sources[1].error ?? '', /HTTP 429: -1003 Too many requests/);

    // Recovered: WazirX asked for 30 s of quiet and is not asked again before that.
    for (const f of Object.values(fakes.sources)) f.set('ok');
    const wazirxAsked = fakes.sources.wazirx.state.requests.length;
    await refresh(p);
    assert.equal(fakes.sources.wazirx.state.requests.length, wazirxAsked, 'asked inside its Retry-After');
    clock.advance(31_000);
    await refresh(p);
    assert.equal(fakes.sources.wazirx.state.requests.length, wazirxAsked + 1);
    const back = await priced();
    assert.deepEqual([back.status, back.body.quote.source], [200, 'coindcx']);
    assert.equal((await fetch(`${p.url}/readyz`).then((r) => r.json()) as { rates?: unknown }).rates, undefined);
  });

  test('a source gone wild (30 % off the others) is ignored and the median of the others used; a zero rate is a failure', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    fakes.sources.kraken.state.rates['SOL/USD'] = '195.00000';
    t.after(() => void (fakes.sources.kraken.state.rates['SOL/USD'] = '150.00000'));
    await refresh(p);
    const r = await create(p, m.headers, { price: { amount: 150.1, currency: 'USD' }, currency: 'SOL', order_id: 'wild' });
    // (150.10 + 149.95) / 2 = 150.025: $150.10 → 1.000499… → 1.0005 SOL.
    assert.deepEqual([r.body.quote.source, r.body.quote.rate, r.body.amount], ['coinbase+binance', 150.025, 1.0005]);
    const kraken = (await p.app.pricing.book.status()).find((s) => s.pair === 'SOL/USD')!.sources[0];
    assert.deepEqual([kraken.source, kraken.outlier], ['kraken', true]);

    // CoinDCX answering "0": a failure (never a zero rate): once its last good rate is too old, the other two's median.
    fakes.sources.coindcx.set('zero');
    clock.advance(MAX_AGE_S * 1000 + 1000);
    await refresh(p);
    assert.match((await p.app.pricing.book.status()).find((s) => s.pair === 'USDT/INR')!.sources[0].error ?? '', /not a positive decimal rate: "0"/);
    const z = await create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: 'zero' });
    assert.deepEqual([z.status, z.body.quote.source], [200, 'wazirx+coingecko']);
  });

  test('one source answers 502 while the other goes wild (999999999): no quote at the wild rate; a jump two sources agree on is taken', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const p = await start(store, clock, { pairs: { 'USDT/INR': ['coindcx', 'wazirx'] } });
    t.after(() => p.close());
    const m = await p.merchant();
    let n = 0;
    const priced = () => create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: `w-${n++}` });
    await refresh(p);
    // Two fresh sources: their median (83.75 and 83.80 → 83.775).
    const first = await priced();
    assert.deepEqual([first.status, first.body.quote.rate, first.body.quote.source, first.body.amount], [200, 83.775, 'coindcx+wazirx', 23.87]);

    // A minute later WazirX is down (502) and CoinDCX says 999999999: ₹1,999 must never be quoted as 0.01 USDT.
    clock.advance(60_000);
    fakes.sources.wazirx.set('down');
    fakes.sources.coindcx.state.rates['USDT/INR'] = '999999999';
    t.after(() => void (fakes.sources.coindcx.state.rates['USDT/INR'] = '83.75'));
    await refresh(p);
    const wild = await priced();
    assert.deepEqual([wild.status, wild.body.code], [503, 'RATE_UNAVAILABLE'], wild.text);
    const coindcx = (await p.app.pricing.book.status()).find((s) => s.pair === 'USDT/INR')!.sources[0];
    assert.deepEqual([coindcx.source, coindcx.rate, coindcx.outlier], ['coindcx', '999999999', true]);
    // WazirX back with its rate, CoinDCX still wild: they disagree, still no quote.
    fakes.sources.wazirx.set('ok');
    clock.advance(60_000);
    await refresh(p);
    assert.equal((await priced()).status, 503);

    // A real move beyond maxChangePercent (5 %) that both sources report is taken at once.
    fakes.sources.coindcx.state.rates['USDT/INR'] = '92.00';
    fakes.sources.wazirx.state.rates['USDT/INR'] = '92.10';
    t.after(() => void (fakes.sources.wazirx.state.rates['USDT/INR'] = '83.80'));
    clock.advance(60_000);
    await refresh(p);
    const moved = await priced();
    assert.deepEqual([moved.status, moved.body.quote.rate], [200, 92.05], moved.text);
    // One source alone jumping 10 % from the accepted 92.05 is held back while the other is down.
    fakes.sources.wazirx.set('down');
    fakes.sources.coindcx.state.rates['USDT/INR'] = '101.50';
    clock.advance(60_000);
    await refresh(p);
    assert.equal((await priced()).status, 503, 'a lone jump is not quoted');
    assert.equal((await p.app.pricing.book.status()).find((s) => s.pair === 'USDT/INR')!.sources[0].outlier, true);
  });

  test('a frozen ticker is stale by its own timestamp; a lone source is refused unless its pair is configured with one source', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    let n = 0;
    const priced = () => create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: `f-${n++}` });
    // WazirX answers every time, but its own time says the price is from 10 minutes ago (maxAgeSeconds 300).
    fakes.sources.wazirx.state.sourceAt = clock.now() - 600_000;
    t.after(() => void delete fakes.sources.wazirx.state.sourceAt);
    await refresh(p);
    const two = await priced();
    // The median of the two fresh sources (83.75, 83.70); the frozen 83.80 takes no part.
    assert.deepEqual([two.status, two.body.quote.rate, two.body.quote.source], [200, 83.725, 'coindcx+coingecko'], two.text);
    const wazirx = (await p.app.pricing.book.status()).find((s) => s.pair === 'USDT/INR')!.sources[1];
    assert.equal(wazirx.source, 'wazirx');
    assert.ok(wazirx.ageSeconds !== null && wazirx.ageSeconds >= 600, 'its age is its own time');

    // CoinGecko frozen too: CoinDCX alone for a pair configured with three sources is refused.
    fakes.sources.coingecko.state.sourceAt = clock.now() - 600_000;
    t.after(() => void delete fakes.sources.coingecko.state.sourceAt);
    clock.advance(60_000);
    await refresh(p);
    const lone = await priced();
    assert.deepEqual([lone.status, lone.body.code], [503, 'RATE_UNAVAILABLE'], lone.text);
    // A pair the operator configured with one source on purpose (USD/INR: frankfurter) is quoted from it.
    const upiUsd = await create(p, m.headers, { price: { amount: 10, currency: 'USD' }, currency: 'UPI', order_id: 'upi-usd' });
    assert.deepEqual([upiUsd.status, upiUsd.body.quote.source], [200, 'frankfurter']);
  });

  test('a payment after the quote expired is held (quote_expired), whatever latePayments says; a method that opts in settles it late', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    // latePayments "settle" is the default; it says nothing about a quote that no longer holds.
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    await refresh(p);
    const price = { amount: 10000, currency: 'INR' };
    const late = await create(p, m.headers, { price, currency: 'SOL', order_id: 'late' });
    const inTime = await create(p, m.headers, { price, currency: 'SOL', order_id: 'in-time' });
    assert.equal(late.status, 200, late.text);
    const validUntil = Date.parse(late.body.quote.valid_until);
    const pay = (intent: any, txRef: string, at: number) =>
      p.app.ledger.ingest({ method: 'SOL', receiver: intent.payment_address, amountMinor: BigInt(Math.round(intent.pay_amount * 1e9)), txRef, occurredAt: at, observedAt: at, source: 'solana', references: [intent.reference] });

    // Paid 20 hours after the quote: held on its intent, never settled at the old rate.
    clock.set(validUntil + 20 * 3600_000);
    assert.equal((await pay(late.body, 'late-sig', validUntil + 20 * 3600_000)).kind, 'held');
    const view = (await p.api('GET', `/api/v1/intents/${late.body.intent_id}`, { headers: m.headers })).body;
    assert.deepEqual([view.status, view.payments[0].status, view.payments[0].reason], ['expired', 'held', 'quote_expired']);
    const events = await p.app.events.forIntent(late.body.intent_id);
    const held = events.find((e) => e.type === 'payment.held');
    assert.ok(held, 'payment.held sent');
    const body = (await p.app.events.show(held.event_id)).body as { data: { reason: string } };
    assert.equal(body.data.reason, 'quote_expired');
    assert.equal(checker.checkWebhook(body), undefined, 'payment.held with quote_expired matches the OpenAPI document');
    assert.equal(events.some((e) => e.type === 'payment.success'), false);
    // The operator's list of held payments names the reason.
    const listed = await p.app.heldPayments.listPayments({ status: 'held', limit: 10 });
    assert.deepEqual(listed.items.map((x) => [x.intentId, x.reason]), [[late.body.intent_id, 'quote_expired']]);
    // A payment inside the quote settles as before.
    assert.equal((await pay(inTime.body, 'in-time-sig', validUntil - 1000)).kind, 'settled');
    // Accepting the held payment (the merchant's decision at the old rate) settles it.
    const accepted = await p.api('POST', `/api/v1/intents/${late.body.intent_id}/payments/late-sig/accept`, { headers: m.headers });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.status, 'settled');
  });

  test('methods.<M>.settleExpiredQuotes: true settles a payment after the quote, marked late, at the quoted amount: never re-priced at the rate of the day it arrives', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const { baseConfig } = await import('../helpers/payd.ts');
    const sol = { ...(baseConfig('/nonexistent').methods as Record<string, any>).SOL, settleExpiredQuotes: true };
    for (const f of Object.values(fakes.sources)) f.set('ok');
    const p = await startPayd({ config: { ...(await store.config()), pricing: pricingConfig(), methods: { SOL: sol } }, clock, workers: false });
    t.after(() => p.close());
    const m = await p.merchant();
    await refresh(p);
    const intent = (await create(p, m.headers, { price: { amount: 10000, currency: 'INR' }, currency: 'SOL', order_id: 'opted-in' })).body;
    assert.equal(intent.quote.rate, 12600);
    // SOL falls ~3 % after the create: the same ₹10,000 now asks more SOL than the intent's pay_amount.
    fakes.sources.kraken.state.rates['SOL/USD'] = '145.00000';
    fakes.sources.coinbase.state.rates['SOL/USD'] = '145.10';
    fakes.sources.binance.state.rates['SOL/USDT'] = '144.95000000';
    t.after(() => {
      fakes.sources.kraken.state.rates['SOL/USD'] = '150.00000';
      fakes.sources.coinbase.state.rates['SOL/USD'] = '150.10';
      fakes.sources.binance.state.rates['SOL/USDT'] = '149.95000000';
    });
    await refresh(p);
    const today = (await create(p, m.headers, { price: { amount: 10000, currency: 'INR' }, currency: 'SOL', order_id: 'priced-today' })).body;
    assert.ok(today.quote.rate < 12600 && today.pay_amount > intent.pay_amount, `the rate moved: ${JSON.stringify(today.quote)}, ${today.pay_amount} SOL`);
    const at = Date.parse(intent.quote.valid_until) + 20 * 3600_000;
    clock.set(at);
    const r = await p.app.ledger.ingest({ method: 'SOL', receiver: intent.payment_address, amountMinor: BigInt(Math.round(intent.pay_amount * 1e9)), txRef: 'opted-in-sig', occurredAt: at, observedAt: at, source: 'solana', references: [intent.reference] });
    assert.equal(r.kind, 'settled');
    const view = (await p.api('GET', `/api/v1/intents/${intent.intent_id}`, { headers: m.headers })).body;
    assert.deepEqual([view.status, view.payments[0].reason, view.quote.rate], ['settled', 'late', 12600]);
    // Settled in full at the amount it was quoted, not found short at the new rate.
    assert.deepEqual([view.amount, view.pay_amount, view.amount_received], [intent.amount, intent.pay_amount, intent.pay_amount]);
  });
});

test('USDC is priced like USDT: 1:1 to USD by default, its INR book from the sources that list it; pricing.pegs turns one peg off, usdtPeg still turns off USDT\'s', async (t) => {
  const clock = testClock(Date.parse('2026-11-26T09:02:00.000Z'));
  const { testStore } = await import('../helpers/stores.ts');
  const usdc = { coindcx: ['USDC/INR', '84.10'], coingecko: ['USDC/INR', '84.05'], kraken: ['USDC/USD', '0.99980000'], coinbase: ['USDC/USD', '0.9999'] } as const;
  for (const [name, [pair, rate]] of Object.entries(usdc)) fakes.sources[name as FakeSourceName].state.rates[pair] = rate;
  t.after(() => {
    for (const [name, [pair]] of Object.entries(usdc)) delete fakes.sources[name as FakeSourceName].state.rates[pair];
  });
  const base = pricingConfig();
  const boot = async (pricing: Record<string, unknown>) => {
    for (const f of Object.values(fakes.sources)) f.set('ok');
    // USDC_SOL configured beside the default methods (the harness's address for it, an RPC never reached).
    const methods = { USDC_SOL: { wallet: sandboxReceivers().USDC_SOL, rpcUrl: 'http://127.0.0.1:1' } };
    const p = await startPayd({ config: { ...(await testStore('sqlite').config()), methods, pricing: { ...base, ...pricing } }, clock });
    t.after(() => p.close());
    // No pair, no source to ask: nothing to refresh.
    if (p.app.pricing.refresher) await refresh(p);
    return { p, m: await p.merchant() };
  };

  const pegged = await boot({ pairs: { ...base.pairs, 'USDC/INR': ['coindcx', 'coingecko'] } });
  const usd = await create(pegged.p, pegged.m.headers, { price: { amount: 25, currency: 'USD' }, currency: 'USDC_SOL', order_id: 'usdc-usd' });
  assert.equal(usd.status, 200, usd.text);
  assert.deepEqual([usd.body.amount, usd.body.quote.rate, usd.body.quote.source], [25, 1, 'peg']);
  // The mean of the two agreeing sources, CoinDCX's 84.10 and CoinGecko's 84.05: ₹1,999 / 84.075 = 23.7764… → 23.78 USDC.
  const inr = await create(pegged.p, pegged.m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDC_SOL', order_id: 'usdc-inr' });
  assert.deepEqual([inr.body.amount, inr.body.quote.rate, inr.body.quote.source], [23.78, 84.075, 'coindcx+coingecko']);
  // €50 through the peg and the ECB's USD/EUR: 50 / 0.92 = 54.3478… → 54.35 USDC.
  const eur = await create(pegged.p, pegged.m.headers, { price: { amount: 50, currency: 'EUR' }, currency: 'USDC_SOL', order_id: 'usdc-eur' });
  assert.deepEqual([eur.body.amount, eur.body.quote.source], [54.35, 'peg×frankfurter']);
  const status = await pegged.p.app.pricing.book.status();
  assert.deepEqual(status.find((s) => s.pair === 'USDC/INR')!.sources.map((s) => [s.source, s.rate]), [['coindcx', '84.1'], ['coingecko', '84.05']]);

  // The USDC peg off: its market rate prices it, the mean of Kraken's 0.9998 and Coinbase's 0.9999:
  // 25 / 0.99985 = 25.0037… → 25.01; USDT keeps its peg.
  const market = await boot({ pegs: { USDC: false }, pairs: { 'USDC/USD': ['kraken', 'coinbase'] } });
  const off = await create(market.p, market.m.headers, { price: { amount: 25, currency: 'USD' }, currency: 'USDC_SOL', order_id: 'usdc-market' });
  assert.deepEqual([off.body.amount, off.body.quote.rate, off.body.quote.source], [25.01, 0.99985, 'kraken+coinbase']);
  const usdtPegged = await create(market.p, market.m.headers, { price: { amount: 25, currency: 'USD' }, currency: 'USDT_SOL', order_id: 'usdt-peg' });
  assert.deepEqual([usdtPegged.body.amount, usdtPegged.body.quote.source], [25, 'peg']);

  // The older `usdtPeg: false` still turns USDT's peg off: with no USDT/USD pair there is no rate,
  // and none configured: the operator's to fix, not an outage to retry.
  const legacy = await boot({ usdtPeg: false, pairs: {} });
  const none = await create(legacy.p, legacy.m.headers, { price: { amount: 25, currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'usdt-unpegged' });
  assert.deepEqual([none.status, none.body.code], [400, 'PRICING_NOT_CONFIGURED']);
  assert.match(none.body.detail, /no USDT\/USD rate is configured/);
  const stillUsdc = await create(legacy.p, legacy.m.headers, { price: { amount: 25, currency: 'USD' }, currency: 'USDC_SOL', order_id: 'usdc-peg' });
  assert.deepEqual([stillUsdc.body.amount, stillUsdc.body.quote.source], [25, 'peg']);
});

test('the worker leader refreshes rates by itself; /metrics reports each pair and source', async (t) => {
  const clock = testClock(Date.now());
  const { testStore } = await import('../helpers/stores.ts');
  const p = await start(testStore('sqlite'), clock, { workers: true });
  t.after(() => p.close());
  let status = await p.app.pricing.book.status();
  for (let i = 0; i < 100 && status.some((s) => s.rate === null); i++) {
    await new Promise((r) => setTimeout(r, 50));
    clock.advance(1000);
    status = await p.app.pricing.book.status();
  }
  assert.deepEqual(status.map((s) => [s.pair, s.rate, s.source]), [
    ['USDT/INR', '83.75', 'coindcx'],
    ['SOL/USD', '150', 'kraken'],
    ['USD/INR', '84', 'frankfurter'],
    ['USD/EUR', '0.92', 'frankfurter'],
  ]);
  const text = await fetch(`${p.url}/metrics`).then((r) => r.text());
  assert.match(text, /payd_rate_available\{pair="USDT\/INR"\} 1/);
  assert.match(text, /payd_rate_age_seconds\{pair="SOL\/USD",source="binance"\} \d+/);
  assert.match(text, /payd_rate_source_failures\{pair="USDT\/INR",source="wazirx"\} 0/);

  // `payd rates` and `payd doctor` in another process read what the leader recorded.
  writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
  const rates = await payd(['rates'], { cwd: p.dir });
  assert.equal(rates.code, 0, rates.err);
  assert.match(rates.out, /^USDT\/INR: 83\.75 from coindcx, \d+ s old$/m);
  assert.match(rates.out, /^ {2}wazirx +83\.8 +\d+ s old$/m);
  assert.match(rates.out, /^SOL\/USD: 150 from kraken/m);
  const doctor = await payd(['doctor'], { cwd: p.dir });
  // A pair three sources price says nothing more; one a lone source prices for an enabled method says so, and how to add a second.
  assert.match(doctor.out, /^ok +rate USDT\/INR: 83\.75 from coindcx, \d+ s old$/m);
  assert.match(doctor.out, /^ok +rate USD\/EUR: 0\.92 from frankfurter, \d+ s old; only one rate source: frankfurter alone sets the price of [^\n]*USDT_TRC20 in EUR[^\n]*\(add a second to pricing\.pairs\["USD\/EUR"\], so that two must agree\)$/m);
  assert.match(doctor.out, /^ok +rate USD\/INR: 84 from frankfurter, [^\n]*frankfurter alone sets the price of [^\n]*SOL in INR[^\n]*\(add a second to pricing\.pairs\["USD\/INR"\] \(coindcx, wazirx serve it\)/m);
});

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { payd } from '../helpers/cli.ts';
import { startPayd, testClock, type PaydHarness, type TestClock } from '../helpers/payd.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';
import { startFakeRateSources, type FakeSourceName } from '../fakes/rates/server.ts';

// Intents priced in INR/USD/EUR, converted at a locked quote from rate sources the
// worker leader refreshes (here: fakes of each source on loopback, refreshed by hand).
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
    quoteSeconds: 600,
    pairs: { 'USDT/INR': ['coindcx', 'wazirx', 'coingecko'], 'SOL/USD': ['kraken', 'coinbase', 'binance'], 'USD/INR': ['frankfurter'], 'USD/EUR': ['frankfurter'] },
    sources,
  };
}

async function start(store: TestStore, clock: TestClock, extra: { workers?: boolean } = {}): Promise<PaydHarness> {
  for (const f of Object.values(fakes.sources)) f.set('ok');
  return startPayd({ config: { ...(await store.config()), pricing: pricingConfig() }, clock, workers: extra.workers ?? false });
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
    // USD priced in USDT: the peg (1 USDT = 1 USD, pricing.usdtPeg default).
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

  test('primary source down: the next one in order; all down: 503 RATE_UNAVAILABLE (other methods unaffected); recovered', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    const price = { amount: 1999, currency: 'INR' };
    let n = 0;
    const priced = () => create(p, m.headers, { price, currency: 'USDT_TRC20', order_id: `o-${n++}` });
    await refresh(p);
    assert.equal((await priced()).body.quote.source, 'coindcx');

    // CoinDCX down (502 page): its last rate serves until it is older than maxAgeSeconds, then WazirX's.
    fakes.sources.coindcx.set('down');
    clock.advance(60_000);
    await refresh(p);
    assert.equal((await priced()).body.quote.source, 'coindcx');
    clock.advance(MAX_AGE_S * 1000);
    await refresh(p);
    const fallback = await priced();
    assert.deepEqual([fallback.body.quote.source, fallback.body.quote.rate, fallback.body.amount], ['wazirx', 83.8, 23.86]);

    // Every USDT/INR source down (502, 429 with Retry-After, CoinGecko's 500): no rate, never a stale one.
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

  test('a source gone wild (30 % off the others) is ignored and the next trusted one is used; a zero rate is a failure', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    fakes.sources.kraken.state.rates['SOL/USD'] = '195.00000';
    t.after(() => void (fakes.sources.kraken.state.rates['SOL/USD'] = '150.00000'));
    await refresh(p);
    const r = await create(p, m.headers, { price: { amount: 150.1, currency: 'USD' }, currency: 'SOL', order_id: 'wild' });
    assert.deepEqual([r.body.quote.source, r.body.quote.rate, r.body.amount], ['coinbase', 150.1, 1]);
    const kraken = (await p.app.pricing.book.status()).find((s) => s.pair === 'SOL/USD')!.sources[0];
    assert.deepEqual([kraken.source, kraken.outlier], ['kraken', true]);

    // CoinDCX answering "0": a failure (never a zero rate): once its last good rate is too old, WazirX's is used.
    fakes.sources.coindcx.set('zero');
    clock.advance(MAX_AGE_S * 1000 + 1000);
    await refresh(p);
    assert.match((await p.app.pricing.book.status()).find((s) => s.pair === 'USDT/INR')!.sources[0].error ?? '', /not a positive decimal rate: "0"/);
    const z = await create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: 'zero' });
    assert.deepEqual([z.status, z.body.quote.source], [200, 'wazirx']);
  });

  test('a payment after valid_until is a late payment at the quoted amount, never re-priced; before it, the quoted pay_amount settles', async (t) => {
    const clock = testClock(Date.parse('2026-11-26T09:00:00.000Z'));
    const p = await start(store, clock);
    t.after(() => p.close());
    const m = await p.merchant();
    await refresh(p);
    const price = { amount: 1999, currency: 'INR' };
    const a = await create(p, m.headers, { price, currency: 'USDT_TRC20', order_id: 'a' });
    const b = await create(p, m.headers, { price, currency: 'USDT_TRC20', order_id: 'b' });
    assert.deepEqual([a.body.pay_amount, b.body.pay_amount], [23.87, 23.88]);
    const validUntil = Date.parse(a.body.quote.valid_until);
    const pay = (amountMinor: bigint, txRef: string, at: number) =>
      p.app.ledger.ingest({ method: 'USDT_TRC20', receiver: a.body.payment_address, amountMinor, txRef, occurredAt: at, observedAt: at, source: 'trongrid' });
    clock.set(validUntil + 1000);
    // A late payment (latePayments "settle", the default): the quoted pay_amount settles, marked late; the quote is kept.
    const late = await pay(23_870_000n, 'aa'.repeat(32), validUntil + 1000);
    assert.equal(late.kind, 'settled');
    const lateView = (await p.api('GET', `/api/v1/intents/${a.body.intent_id}`, { headers: m.headers })).body;
    assert.deepEqual([lateView.status, lateView.amount, lateView.quote.rate, lateView.payments[0].reason], ['settled', 23.87, 83.75, 'late']);
    const inTime = await pay(23_880_000n, 'bb'.repeat(32), validUntil - 1000);
    assert.equal(inTime.kind, 'settled');
    const settled = await p.api('GET', `/api/v1/intents/${b.body.intent_id}`, { headers: m.headers });
    assert.deepEqual([settled.body.status, settled.body.amount, settled.body.quote.rate], ['settled', 23.87, 83.75]);
  });
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
  assert.match(doctor.out, /^ok +rate USD\/EUR: 0\.92 from frankfurter, \d+ s old$/m);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baseConfig, startPayd } from '../helpers/payd.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Pricing tried before going live: the sandbox quotes fixed, documented simulated rates (no
// source asked); a live daemon asked for a price no configured pair can convert says which pair
// to add and how (400), instead of an outage's 503 that no retry ever clears.

const create = (p: Awaited<ReturnType<typeof startPayd>>, headers: Record<string, string>, body: Record<string, unknown>) => p.api('POST', '/api/v1/intents/create-payment', { body, headers });

test('the sandbox prices INR, USD and EUR at its simulated rates, labelled "simulated", for every method', async (t) => {
  const p = await startPayd({ sandbox: true });
  t.after(() => p.close());
  const m = await p.merchant();

  // ₹1,999 / 85.5 ₹ per USDT = 23.3801… → 23.39 USDT (rounded up to the 0.01 step).
  const usdt = await create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: 'inr-usdt' });
  assert.equal(usdt.status, 200, usdt.text);
  assert.deepEqual([usdt.body.amount, usdt.body.quote.rate, usdt.body.quote.source, usdt.body.livemode], [23.39, 85.5, 'simulated', false]);

  // SOL/INR = SOL/USD 150 × USD/INR 85 = 12750; ₹1,999 → 0.156784313… → 0.156785 SOL.
  const sol = await create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'SOL', order_id: 'inr-sol' });
  assert.deepEqual([sol.status, sol.body.amount, sol.body.quote.rate, sol.body.quote.source], [200, 0.156785, 12750, 'simulated×simulated']);

  // €50 in USDT: the USD peg, then USD/EUR 0.92: 50 / 0.92 = 54.3478… → 54.35.
  const eur = await create(p, m.headers, { price: { amount: 50, currency: 'EUR' }, currency: 'USDT_SOL', order_id: 'eur-usdt' });
  assert.deepEqual([eur.status, eur.body.amount, eur.body.quote.source], [200, 54.35, 'peg×simulated']);

  // UPI priced in rupees is the identity: no rate at all.
  const upi = await create(p, m.headers, { price: { amount: 499, currency: 'INR' }, currency: 'UPI', order_id: 'inr-upi' });
  assert.deepEqual([upi.status, upi.body.amount, upi.body.quote.source], [200, 499, 'identity']);

  // `payd rates` / doctor see the simulated pairs as such.
  const status = await p.app.pricing.book.status();
  assert.ok(status.length > 0 && status.every((s) => s.source === 'simulated'), JSON.stringify(status));
  assert.equal(p.app.pricing.refresher, null, 'the sandbox asks no rate source');
});

test('a live daemon never quotes simulated rates: a pair nobody configured is a 400 naming the pair and how to add it; doctor names it too', async (t) => {
  const p = await startPayd({});
  t.after(() => p.close());
  const m = await p.merchant();
  const r = await create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: 'unpriced' });
  assert.deepEqual([r.status, r.body.code], [400, 'PRICING_NOT_CONFIGURED'], r.text);
  assert.equal(r.headers.get('retry-after'), null, 'nothing to wait for');
  assert.match(r.body.detail, /no USDT\/INR rate is configured/);
  assert.match(r.body.detail, /"pricing": \{ "pairs": \{ "USDT\/INR": \["coindcx", "wazirx"\] \} \}/);
  // Nothing was created: the same order can be created once priced in the method's currency.
  const plain = await create(p, m.headers, { amount: 23.39, currency: 'USDT_TRC20', order_id: 'unpriced' });
  assert.equal(plain.status, 200, plain.text);

  const lines = await p.app.doctor.run();
  const pricing = lines.find((l) => l.what === 'pricing');
  assert.ok(pricing, JSON.stringify(lines));
  assert.match(pricing.message, /no rate configured for [^:]*USDT\/INR/);
  assert.match(pricing.message, /PRICING_NOT_CONFIGURED/);
  assert.match(pricing.message, /"SOL\/INR": \["coindcx", "wazirx"\]/);
});

test('a configured pair with no fresh rate is still the outage it is: 503 RATE_UNAVAILABLE with Retry-After', async (t) => {
  const p = await startPayd({ config: { pricing: { refreshSeconds: 60, pairs: { 'USDT/INR': ['coindcx', 'wazirx'] } } } });
  t.after(() => p.close());
  const m = await p.merchant();
  const r = await create(p, m.headers, { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: 'stale' });
  assert.deepEqual([r.status, r.body.code, r.headers.get('retry-after')], [503, 'RATE_UNAVAILABLE', '60'], r.text);
});

test('doctor reports no rate pair of a method that is not enabled as a problem', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-test-'));
  const raw = baseConfig(dir, { pricing: { pairs: { 'SOL/USD': ['kraken', 'coinbase'], 'USDT/INR': ['coindcx', 'wazirx'] } } });
  raw.methods = { USDT_TRC20: raw.methods.USDT_TRC20 } as typeof raw.methods;
  const p = await startPayd({ dir, rawConfig: raw });
  t.after(() => p.close());
  const lines = await p.app.doctor.run();
  const sol = lines.find((l) => l.what === 'rate SOL/USD');
  assert.deepEqual([sol?.ok, sol?.message], [true, 'not used: no enabled method is paid in it']);
  // The enabled method's pair still fails while it has no fresh rate.
  const usdt = lines.find((l) => l.what === 'rate USDT/INR');
  assert.equal(usdt?.ok, false);
  assert.match(usdt!.message, /503 RATE_UNAVAILABLE/);
});

test('a price given as decimal text is taken exactly, for a chosen and an open intent; text with too many decimals or not a decimal is refused saying why', async (t) => {
  const p = await startPayd({ sandbox: true });
  t.after(() => p.close());
  const m = await p.merchant();

  // $1,234.57 at the USD peg is 1234.57 USDT, not a float's neighbour of it.
  const usdt = await create(p, m.headers, { price: { amount: '1234.57', currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'text-usdt' });
  assert.equal(usdt.status, 200, usdt.text);
  assert.deepEqual([usdt.body.amount_exact ?? String(usdt.body.amount), usdt.body.price], ['1234.57', { amount: 1234.57, currency: 'USD' }]);
  // The same order sent again with the price as a number is the same request.
  const again = await create(p, m.headers, { price: { amount: 1234.57, currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'text-usdt' });
  assert.deepEqual([again.status, again.body.intent_id], [200, usdt.body.intent_id]);

  const open = await create(p, m.headers, { price: { amount: '1499.50', currency: 'INR' }, methods: ['UPI', 'USDT_TRC20'], order_id: 'text-open' });
  assert.equal(open.status, 200, open.text);
  assert.deepEqual([open.body.currency, open.body.price], [null, { amount: 1499.5, currency: 'INR' }]);

  const tooFine = await create(p, m.headers, { price: { amount: '1234.567', currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'text-fine' });
  assert.deepEqual([tooFine.status, tooFine.body.code, tooFine.body.detail], [400, 'INVALID_REQUEST', 'price.amount has more than 2 decimal places for USD']);
  const notDecimal = await create(p, m.headers, { price: { amount: '1,234.57', currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'text-comma' });
  assert.deepEqual([notDecimal.status, notDecimal.body.errors], [400, [{ field: 'price.amount', message: 'price.amount must be a plain decimal such as "12.5" (digits, one optional point)' }]]);
  const zero = await create(p, m.headers, { price: { amount: '0.00', currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'text-zero' });
  assert.deepEqual([zero.status, zero.body.errors], [400, [{ field: 'price.amount', message: 'price.amount must be greater than 0' }]]);
});

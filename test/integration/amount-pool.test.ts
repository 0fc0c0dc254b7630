// The unique-amount pool under pressure (docs/api.md "Unique pay_amount"): one client creating the
// same price hundreds of times cannot lock it, every pay_amount stays unique and within the
// merchant-visible bound (the price + maxSurchargePercent, default 1 %), and an amount is not
// handed out again while an older intent could still receive it (until expires_at + cooldown).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baseConfig, startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

const TTL_MS = 30 * 60_000;
const COOLDOWN_MS = 24 * 3600_000;

async function createMany(p: PaydHarness, headers: Record<string, string>, prefix: string, n: number): Promise<{ id: string; pay: number }[]> {
  const out: { id: string; pay: number }[] = [];
  for (let i = 0; i < n; i++) {
    const r = await p.api('POST', '/api/v1/intents/create-payment', { headers, body: { amount: 499, currency: 'UPI', order_id: `${prefix}-${i}` } });
    assert.equal(r.status, 200, `create ${prefix}-${i}: ${r.text}`);
    out.push({ id: r.body.intent_id, pay: r.body.pay_amount });
  }
  return out;
}

const paise = (n: number) => Math.round(n * 100);

forEachStore((store) => {
  test('300 creates of ₹499 by one client: the 301st still gets a unique pay_amount ≤ ₹503.99 (1 %); no pay_amount is a whole rupee; with merchantSharePercent 80 one shop holds at most 396 of the 495, the window ends there; amounts come back only after expires_at + cooldown', async (t) => {
    const clock = testClock();
    // One daemon, two shops on one VPA: each may hold at most 80 % of a price's amounts.
    const p = await startPayd({ store, clock, config: { methods: { UPI: { ...baseConfig('/x').methods.UPI, merchantSharePercent: 80 } } } });
    t.after(() => p.close());
    const m = await p.merchant();

    const first = await createMany(p, m.headers, 'click', 301);
    const pays = first.map((x) => paise(x.pay));
    assert.equal(new Set(pays).size, 301, 'every pay_amount unique');
    assert.ok(pays.every((x) => x >= 49_900 && x <= 50_399), 'within ₹499.00 … ₹503.99');
    assert.ok(pays.every((x) => x % 100 !== 0), 'never a whole rupee (a payer rounding down would match it exactly)');
    assert.equal(pays[0], 49_901, 'the first: ₹499.01, not the bare ₹499.00');
    assert.equal(pays[300], 50_204, 'the 301st: the smallest free amount, ₹502.04 (₹500.00, ₹501.00 and ₹502.00 skipped)');

    // Canceling keeps every reservation; so does expiry (a customer may still pay those amounts).
    for (const x of first.slice(0, 150)) assert.equal((await p.api('POST', `/api/v1/intents/${x.id}/cancel`, { headers: m.headers })).status, 200);
    clock.advance(TTL_MS + 60_000);
    const later = await createMany(p, m.headers, 'later', 95);
    const held = new Set(pays);
    assert.ok(later.every((x) => !held.has(paise(x.pay))), 'no amount of a canceled or expired intent is handed out within its cooldown');
    assert.deepEqual(later.map((x) => paise(x.pay)), Array.from({ length: 95 }, (_, i) => 50_205 + i), '₹502.05 … ₹502.99');
    // This shop now holds 396 of the 495 amounts (80 %, merchantSharePercent): its next create is refused…
    const mine = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 499, currency: 'UPI', order_id: 'share' } });
    assert.equal(mine.status, 503, mine.text);
    assert.equal(mine.body.code, 'AMOUNT_UNAVAILABLE');
    // …and another shop on the same receiver still gets the last 99, up to the bound and no further.
    const other = await p.merchant('Other shop');
    const theirs = await createMany(p, other.headers, 'theirs', 99);
    assert.deepEqual(theirs.map((x) => paise(x.pay)), Array.from({ length: 99 }, (_, i) => 50_301 + i), '₹503.01 … ₹503.99');
    const full = await p.api('POST', '/api/v1/intents/create-payment', { headers: other.headers, body: { amount: 499, currency: 'UPI', order_id: 'full' } });
    assert.equal(full.status, 503, full.text);
    assert.equal(full.body.code, 'AMOUNT_UNAVAILABLE');
    // Another price still has its own window.
    const price = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 799, currency: 'UPI', order_id: 'other' } });
    assert.equal(price.body.pay_amount, 799.01);

    // Past the first batch's expires_at + cooldown (not yet the later batch's): ₹499.01 is free again.
    clock.advance(COOLDOWN_MS);
    const again = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 499, currency: 'UPI', order_id: 'again' } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.pay_amount, 499.01);
  });
});

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { RECEIVERS, startPayd, testClock } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// The create/fetch contract on both stores (SQLite file, PostgreSQL database).
forEachStore((store) => {
  test('create and fetch return exactly the contract fields, with deposit parameters per method', async (t) => {
    const p = await startPayd({ config: await store.config() });
    t.after(() => p.close());
    const m = await p.merchant();
    const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 100.5, currency: 'UPI', order_id: 'ORD-1' }, headers: m.headers });
    assert.equal(r.status, 200);
    const c = r.body;
    assert.equal(c.success, true);
    assert.match(c.intent_id, UUID_V4);
    assert.equal(c.amount, 100.5);
    assert.equal(c.currency, 'UPI');
    assert.equal(c.payment_address, 'shop@hdfcbank');
    assert.equal(c.status, 'pending');
    assert.equal(c.order_id, 'ORD-1');
    assert.match(c.created_at, ISO_MS);
    assert.equal(c.pay_amount, 100.5);
    assert.equal(c.payment_uri, 'upi://pay?pa=shop%40hdfcbank&pn=Example%20Shop&am=100.50&cu=INR&tn=ORD-1');
    assert.match(c.expires_at, ISO_MS);
    assert.equal(Date.parse(c.expires_at) - Date.parse(c.created_at), 1800 * 1000);
    assert.equal(c.checkout_url, `https://pay.example.com/pay/${c.intent_id}`);
    assert.equal(c.livemode, true);

    const f = await p.api('GET', `/api/v1/intents/${c.intent_id}`, { headers: m.headers });
    assert.equal(f.status, 200);
    for (const k of ['intent_id', 'amount', 'currency', 'status', 'order_id', 'pay_amount', 'payment_address', 'payment_uri', 'created_at', 'expires_at', 'checkout_url']) assert.deepEqual(f.body[k], c[k], k);
    // Present and null until settled.
    assert.ok('transaction_hash' in f.body && f.body.transaction_hash === null);
    assert.ok('verified_at' in f.body && f.body.verified_at === null);
    assert.equal('success' in f.body, false);

    const sol = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 0.0000001, currency: 'SOL', order_id: 'tiny' }, headers: m.headers });
    // Plain decimal on the wire, never 1e-7.
    assert.match(sol.text, /"amount":0\.0000001,/);
    assert.match(sol.body.payment_uri, new RegExp(`^solana:${RECEIVERS.SOL}\\?amount=0\\.0000001&reference=[1-9A-HJ-NP-Za-km-z]{32,44}&label=`));
    const usdtSol = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 25, currency: 'USDT_SOL', order_id: 'u' }, headers: m.headers });
    assert.match(usdtSol.body.payment_uri, /spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB/);
    assert.notEqual(usdtSol.body.reference, sol.body.reference);
    const tron = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 25, currency: 'USDT_TRC20', order_id: 't' }, headers: m.headers });
    assert.equal(tron.body.payment_address, RECEIVERS.USDT_TRC20);
    assert.equal(tron.body.payment_uri, `tron:${RECEIVERS.USDT_TRC20}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=25.01`, 'never a whole USDT');
  });

  test('20 concurrent identical creates produce one intent; a retry returns it whatever its status', async (t) => {
    const p = await startPayd({ config: await store.config() });
    t.after(() => p.close());
    const m = await p.merchant();
    const body = { amount: 499, currency: 'UPI', order_id: 'same' };
    const results = await Promise.all(Array.from({ length: 20 }, () => p.api('POST', '/api/v1/intents/create-payment', { body, headers: m.headers })));
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    assert.equal(new Set(results.map((r) => r.body.intent_id)).size, 1);
    const count = await p.app.db.selectFrom('intents').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
    // The same order_id for another merchant is a different intent.
    const other = await p.merchant('Other');
    const o = await p.api('POST', '/api/v1/intents/create-payment', { body, headers: other.headers });
    assert.notEqual(o.body.intent_id, results[0].body.intent_id);
  });

  test('concurrent creates of one amount get distinct pay_amounts, smallest offsets first, never a whole unit', async (t) => {
    const p = await startPayd({ config: await store.config() });
    t.after(() => p.close());
    const m = await p.merchant();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 100, currency: 'UPI', order_id: `o-${i}` }, headers: m.headers })),
    );
    const pays = results.map((r) => Math.round(r.body.pay_amount * 100)).sort((a, b) => a - b);
    // ₹100.00 itself is never handed out: a payer rounding ₹100.37 down would pay it exactly.
    assert.deepEqual(pays, Array.from({ length: 30 }, (_, i) => 10001 + i));
    // SOL and USDT_SOL share a wallet but are separate pools.
    const a = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1, currency: 'SOL', order_id: 's' }, headers: m.headers });
    const b = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1, currency: 'USDT_SOL', order_id: 'us' }, headers: m.headers });
    assert.equal(a.body.pay_amount, 1.000001);
    assert.equal(b.body.pay_amount, 1.01);
  });

  test('expiry: pending never shows after expires_at, housekeeping writes it, and the amount stays reserved for the cooldown', async (t) => {
    const clock = testClock(Date.parse('2026-11-22T10:00:00.000Z'));
    const p = await startPayd({ clock, config: { ...(await store.config()), intents: { ttlSeconds: 60, amountReuseCooldownSeconds: 3600 } } });
    t.after(() => p.close());
    const m = await p.merchant();
    const mk = (order: string) => p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: order }, headers: m.headers });
    const first = (await mk('a')).body;
    clock.advance(60_000);
    const fetched = await p.api('GET', `/api/v1/intents/${first.intent_id}`, { headers: m.headers });
    assert.equal(fetched.body.status, 'expired');
    assert.equal(await p.app.intents.expireDue(), 1);
    const row = await p.app.intents.find(first.intent_id);
    assert.equal(row?.status, 'expired');
    const ev = await p.app.events.list({});
    assert.deepEqual(ev.map((e) => e.type), ['intent.expired']);
    // Within the cooldown the old pay_amount is not handed out again.
    assert.equal(first.pay_amount, 10.01, 'the whole ₹10.00 is never handed out');
    assert.equal((await mk('b')).body.pay_amount, 10.02);
    clock.advance(3600_000);
    assert.equal((await mk('c')).body.pay_amount, 10.01);
    // Idempotent create of an expired intent returns it as it is.
    const again = await mk('a');
    assert.equal(again.body.intent_id, first.intent_id);
    assert.equal(again.body.status, 'expired');
  });

  test('AMOUNT_UNAVAILABLE says when the first amount frees up, in Retry-After and in its detail', async (t) => {
    const clock = testClock(Date.parse('2026-11-22T10:00:00.000Z'));
    const p = await startPayd({ clock, config: { ...(await store.config()), intents: { ttlSeconds: 60, amountReuseCooldownSeconds: 3600 }, methods: { SOL: { wallet: RECEIVERS.SOL, maxOffsetSteps: 2, maxSurchargePercent: 0 } } } });
    t.after(() => p.close());
    const m = await p.merchant();
    const mk = (order: string) => p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1, currency: 'SOL', order_id: order }, headers: m.headers });
    // 1, 1.000001, 1.000002: the whole SOL is never handed out, two amounts are.
    assert.equal((await mk('a')).body.pay_amount, 1.000001);
    clock.advance(5_000);
    assert.equal((await mk('b')).body.pay_amount, 1.000002);
    clock.advance(5_000);
    const full = await mk('c');
    assert.equal(full.status, 503);
    assert.equal(full.body.code, 'AMOUNT_UNAVAILABLE');
    // The first amount was reserved until its expiry (60 s) plus the cooldown (3600 s); 10 s have passed.
    assert.equal(full.headers.get('retry-after'), '3650');
    assert.match(full.body.detail, /free again in 3650 s \(Retry-After\)/);
    clock.advance(3650_000);
    assert.equal((await mk('c')).body.pay_amount, 1.000001);
  });
});

test('data survives a restart, and no client secret is stored in the database file', async (t) => {
  const first = await startPayd({ keepDir: true });
  const m = await first.merchant();
  const created = (await first.api('POST', '/api/v1/intents/create-payment', { body: { amount: 42, currency: 'UPI', order_id: 'keep' }, headers: m.headers })).body;
  await first.close();

  const second = await startPayd({ dir: first.dir });
  t.after(() => second.close());
  const fetched = await second.api('GET', `/api/v1/intents/${created.intent_id}`, { headers: m.headers });
  assert.equal(fetched.status, 200);
  assert.equal(fetched.body.pay_amount, 42.01);
  await second.app.db.destroy().catch(() => {});

  const files = readdirSync(first.dir).filter((f) => f.startsWith('payd.sqlite'));
  const bytes = Buffer.concat(files.map((f) => readFileSync(join(first.dir, f))));
  assert.ok(bytes.length > 0);
  assert.equal(bytes.includes(Buffer.from(m.secret)), false, 'client secret found in the database');
  assert.equal(bytes.includes(Buffer.from(m.secret.slice(8))), false, 'client secret body found in the database');
  assert.equal(bytes.includes(Buffer.from(m.webhookSecret)), false, 'webhook secret found in the database');
});

// Client-secret rotation and modes on both stores.
forEachStore((store) => {
  test('a rotated client secret replaces the old one at once with no grace', async (t) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant();
    const { client_secret, previous_valid_until } = await p.app.merchants.rotateSecret(m.clientId, 0);
    assert.equal(previous_valid_until, null);
    const path = '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10';
    assert.equal((await p.api('GET', path, { headers: m.headers })).status, 403);
    assert.equal((await p.api('GET', path, { headers: { 'x-client-id': m.clientId, 'x-client-secret': client_secret } })).status, 404);
  });

  test('during a rotation grace both client secrets work; after it only the new one', async (t) => {
    const clock = testClock();
    const p = await startPayd({ store, clock });
    t.after(() => p.close());
    const m = await p.merchant();
    const path = '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10';
    const status = async (secret: string) => (await p.api('GET', path, { headers: { 'x-client-id': m.clientId, 'x-client-secret': secret } })).status;
    assert.equal(await status(m.secret), 404, 'cached before the rotation');
    const first = await p.app.merchants.rotateSecret(m.clientId, 3600);
    assert.equal(first.previous_valid_until, new Date(clock.now() + 3600_000).toISOString());
    assert.equal(await status(m.secret), 404, 'old secret inside the grace period');
    assert.equal(await status(first.client_secret), 404, 'new secret');
    assert.equal(await status('sk_live_wrong'), 403);
    clock.advance(3600_000 + 1);
    assert.equal(await status(m.secret), 403, 'old secret after the grace period');
    assert.equal(await status(first.client_secret), 404);
    // A second rotation keeps only the newest previous secret: the first one never comes back.
    const second = await p.app.merchants.rotateSecret(m.clientId, 3600);
    assert.equal(await status(m.secret), 403);
    assert.equal(await status(first.client_secret), 404);
    assert.equal(await status(second.client_secret), 404);
  });

  test('the credential cache: a wrong secret is refused right after a good one, and a previous secret ends with its grace even while cached', async (t) => {
    const clock = testClock();
    const p = await startPayd({ store, clock });
    t.after(() => p.close());
    const m = await p.merchant();
    const path = '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10';
    const status = async (secret: string) => (await p.api('GET', path, { headers: { 'x-client-id': m.clientId, 'x-client-secret': secret } })).status;
    assert.equal(await status(m.secret), 404);
    assert.equal(await status(m.secret), 404, 'the remembered verdict');
    // Same length, one character off: compared, not trusted.
    const off = m.secret.slice(0, -1) + (m.secret.endsWith('A') ? 'B' : 'A');
    assert.equal(await status(off), 403);
    assert.equal(await status(m.secret), 404);
    // A grace shorter than the cache's lifetime (1 s): the old secret must stop at its end, not at the cache's.
    const rotated = await p.app.merchants.rotateSecret(m.clientId, 0.4);
    assert.equal(await status(m.secret), 404, 'old secret within the grace');
    assert.equal(await status(rotated.client_secret), 404, 'new secret');
    assert.equal(await status(m.secret), 404, 'old secret again, still within the grace');
    clock.advance(500);
    assert.equal(await status(m.secret), 403, 'old secret after the grace, cache entry still fresh');
    assert.equal(await status(rotated.client_secret), 404);
  });

  test('a key of the other mode answers 403 with a detail naming the mode it is for', async (t) => {
    const live = await startPayd({ store });
    t.after(() => live.close());
    const sandbox = await startPayd({ store, sandbox: true });
    t.after(() => sandbox.close());
    const lm = await live.merchant();
    const sm = await sandbox.merchant();
    assert.match(lm.secret, /^sk_live_/);
    assert.match(sm.secret, /^sk_test_/);
    const path = '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10';
    const toLive = await live.api('GET', path, { headers: sm.headers });
    assert.equal(toLive.status, 403);
    assert.equal(toLive.body.code, 'AUTH_INVALID_SECRET');
    assert.match(toLive.body.detail, /sandbox key \(sk_test_…\) and this daemon is live/);
    const toSandbox = await sandbox.api('GET', path, { headers: lm.headers });
    assert.equal(toSandbox.status, 403);
    assert.match(toSandbox.body.detail, /live key \(sk_live_…\) and this daemon is the sandbox/);
    // A wrong secret of the right mode still says only "invalid credentials".
    const wrong = await live.api('GET', path, { headers: { 'x-client-id': lm.clientId, 'x-client-secret': 'sk_live_nope' } });
    assert.equal(wrong.body.detail, 'invalid credentials');
  });
});

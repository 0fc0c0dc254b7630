// Payment links through the real daemon (in-process app, real HTTP on loopback), on both stores:
// an opened link costs nothing until a customer chooses; a customer-entered amount is validated
// and each customer's choice is its own intent, settled on its own; a turned-off, expired or
// used link says so and creates nothing; anonymous floods meet 429 and leave the amount pool free.
// Every API answer is checked against the OpenAPI document (the harness's api()).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinkService } from '../../src/services/links/index.ts';
import { payd } from '../helpers/cli.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore, testStore, type TestStore } from '../helpers/stores.ts';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');

async function setup(t: { after: (fn: () => unknown) => void }, store: TestStore, config: Record<string, any> = {}) {
  const clock = testClock(T0);
  const p = await startPayd({ store, clock, config });
  t.after(() => p.close());
  const m = await p.merchant('Saree House');
  const createLink = async (body: Record<string, unknown>) => {
    const r = await p.api('POST', '/api/v1/payment-links', { body, headers: m.headers });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  return { p, m, clock, createLink };
}

/** The link's path on this daemon (its url is under server.publicUrl, which is not where the test listens). */
const pathOf = (link: { url: string }) => new URL(link.url).pathname;

/** A customer's choice on the link page, as the form posts it; the redirect is not followed. */
function choose(p: PaydHarness, link: { url: string }, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(p.url + pathOf(link), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
}

async function intentsOf(p: PaydHarness, headers: Record<string, string>, linkId: string) {
  const r = await p.api('GET', `/api/v1/intents?link_id=${linkId}&limit=100`, { headers });
  assert.equal(r.status, 200, r.text);
  return r.body.data as any[];
}

forEachStore((store) => {
  test('a fixed-price link opened 50 times creates no intent; the customer\'s choice creates one, with the link on it', async (t) => {
    const { p, m, createLink } = await setup(t, store);
    const link = await createLink({ title: 'Blue saree', amount: 499 });
    assert.match(link.url, /^https:\/\/pay\.example\.com\/l\/[1-9A-HJ-NP-Za-km-z]{8,12}$/, 'a short URL under server.publicUrl');
    assert.deepEqual([link.status, link.price, link.customer_amount, link.payments], ['active', { amount: 499, currency: 'INR' }, null, 0]);
    for (let i = 0; i < 50; i++) {
      const page = await fetch(p.url + pathOf(link));
      assert.equal(page.status, 200);
      const text = await page.text();
      if (i === 0) {
        assert.match(text, /Blue saree/);
        assert.match(text, /₹499\.00/);
        assert.match(text, /How do you want to pay\?/);
      }
    }
    assert.equal((await intentsOf(p, m.headers, link.link_id)).length, 0, 'opening the link costs nothing');
    const n = await p.app.db.selectFrom('intents').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(n.n), 0);

    const res = await choose(p, link, { currency: 'UPI' });
    assert.equal(res.status, 303);
    const intentId = /^\/pay\/([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')?.[1];
    assert.ok(intentId, `sent to the checkout: ${res.headers.get('location')}`);
    const [intent] = await intentsOf(p, m.headers, link.link_id);
    assert.equal(intent.intent_id, intentId);
    assert.equal(intent.link_id, link.link_id);
    assert.equal(intent.currency, 'UPI');
    assert.equal(intent.amount, 499);
    assert.deepEqual(intent.price, { amount: 499, currency: 'INR' });
    assert.equal(intent.order_id, `${pathOf(link).slice(3)}-1`, 'an order_id the link numbers');
    assert.equal((await fetch(`${p.url}/pay/${intentId}`)).status, 200, 'the normal checkout of that intent');

    // The QR codes carry the link's URL.
    const png = await fetch(`${p.url}${pathOf(link)}/qr.png`);
    assert.equal(png.headers.get('content-type'), 'image/png');
    assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const svg = await fetch(`${p.url}${pathOf(link)}/qr.svg`);
    assert.match(await svg.text(), /^<svg/);
  });

  test('a customer-entered amount link paid by two customers settles two intents, each with its own order and link_id', async (t) => {
    const { p, m, clock, createLink } = await setup(t, store);
    const link = await createLink({ title: 'counter', customer_amount: { min: 10, max: 5000 }, methods: ['UPI'] });
    assert.deepEqual(link.customer_amount, { min: 10, max: 5000, currency: 'INR' });
    assert.match(await (await fetch(p.url + pathOf(link))).text(), /Amount to pay \(INR, ₹10\.00 to ₹5,000\.00\)/);
    const entered = await fetch(`${p.url}${pathOf(link)}?amount=450`);
    assert.equal(entered.status, 200);
    assert.match(await entered.text(), /₹450\.00/, 'the choice, priced at the amount entered');
    const outside = await fetch(`${p.url}${pathOf(link)}?amount=6000`);
    assert.equal(outside.status, 400);
    assert.match(await outside.text(), /must be between 10 and 5000 INR/);

    // Validated like any create: outside the bounds, too many decimals, not a number; nothing is created.
    for (const amount of ['5', '6000', '450.123', 'abc', '']) {
      const r = await choose(p, link, { currency: 'UPI', amount });
      assert.equal(r.status, 400, amount);
      assert.match(await r.text(), /Please check the amount/);
    }
    assert.equal((await choose(p, link, { currency: 'SOL', amount: '450' })).status, 400, 'a method the link does not offer');
    assert.equal((await intentsOf(p, m.headers, link.link_id)).length, 0);

    const first = await choose(p, link, { currency: 'UPI', amount: '450' });
    const second = await choose(p, link, { currency: 'UPI', amount: '450' });
    assert.deepEqual([first.status, second.status], [303, 303]);
    const intents = (await intentsOf(p, m.headers, link.link_id)).reverse();
    assert.equal(intents.length, 2);
    assert.notEqual(intents[0].order_id, intents[1].order_id);
    assert.notEqual(intents[0].pay_amount, intents[1].pay_amount, 'each customer gets a unique amount');
    for (const [i, intent] of intents.entries()) {
      clock.advance(1000);
      const now = clock.now();
      await p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(intent.pay_amount * 100)), txRef: `41234567890${i}`, occurredAt: now, observedAt: now, source: 'imap' });
    }
    const settled = await intentsOf(p, m.headers, link.link_id);
    assert.deepEqual(settled.map((x) => x.status), ['settled', 'settled']);
    const events = await p.api('GET', '/api/v1/events', { headers: m.headers });
    const success = events.body.data.filter((e: any) => e.type === 'payment.success');
    assert.equal(success.length, 2);
    assert.deepEqual(success.map((e: any) => e.data.link_id), [link.link_id, link.link_id], 'the events carry link_id');
    const shown = await p.api('GET', `/api/v1/payment-links/${link.link_id}`, { headers: m.headers });
    assert.equal(shown.body.payments, 2);
  });

  test('a deactivated link says so and creates nothing; activated again it takes payments; expired and used links say so too', async (t) => {
    const { p, m, clock, createLink } = await setup(t, store);
    const link = await createLink({ title: 'Blue saree', price: { amount: '12.50', currency: 'USD' }, methods: ['UPI'] });
    const off = await p.api('POST', `/api/v1/payment-links/${link.link_id}/deactivate`, { headers: m.headers });
    assert.equal(off.body.status, 'inactive');
    const page = await fetch(p.url + pathOf(link));
    assert.match(await page.text(), /This payment link has been turned off by the shop\./);
    const refused = await choose(p, link, { currency: 'UPI' });
    assert.equal(refused.status, 409);
    assert.equal((await intentsOf(p, m.headers, link.link_id)).length, 0);
    const on = await p.api('POST', `/api/v1/payment-links/${link.link_id}/activate`, { headers: m.headers });
    assert.equal(on.body.status, 'active');

    // Another merchant cannot see or touch it.
    const other = await p.merchant('Other');
    assert.equal((await p.api('GET', `/api/v1/payment-links/${link.link_id}`, { headers: other.headers })).status, 404);
    assert.equal((await p.api('POST', `/api/v1/payment-links/${link.link_id}/deactivate`, { headers: other.headers })).status, 404);

    clock.advance(1000);
    const single = await createLink({ title: 'One lamp', amount: 800, single_use: true, methods: ['UPI'], expires_at: new Date(T0 + 3600_000).toISOString() });
    assert.equal((await choose(p, single, { currency: 'UPI' })).status, 303);
    const [intent] = await intentsOf(p, m.headers, single.link_id);
    const now = clock.now();
    await p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(intent.pay_amount * 100)), txRef: '412345678999', occurredAt: now, observedAt: now, source: 'imap' });
    assert.match(await (await fetch(p.url + pathOf(single))).text(), /This payment link has already been paid\./);
    assert.equal((await choose(p, single, { currency: 'UPI' })).status, 409);
    assert.equal((await p.api('GET', `/api/v1/payment-links/${single.link_id}`, { headers: m.headers })).body.status, 'used');

    clock.advance(1000);
    const later = await createLink({ title: 'Sale', amount: 100, expires_at: new Date(T0 + 60_000).toISOString() });
    clock.advance(120_000);
    assert.match(await (await fetch(p.url + pathOf(later))).text(), /This payment link has expired\./);
    assert.equal((await choose(p, later, { currency: 'UPI' })).status, 409);

    const list = await p.api('GET', '/api/v1/payment-links', { headers: m.headers });
    assert.deepEqual(list.body.data.map((l: any) => [l.title, l.status]), [['Sale', 'expired'], ['One lamp', 'used'], ['Blue saree', 'active']]);
  });

  test('bad link requests get clear errors', async (t) => {
    const { p, m } = await setup(t, store);
    const bad = async (body: unknown, field: RegExp) => {
      const r = await p.api('POST', '/api/v1/payment-links', { body, headers: m.headers });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.detail, field);
    };
    await bad({ title: 'x' }, /exactly one of amount, price and customer_amount/);
    await bad({ title: 'x', amount: 1, price: { amount: 1, currency: 'INR' } }, /exactly one/);
    await bad({ title: '', amount: 1 }, /title/);
    await bad({ title: 'x', amount: 1.234 }, /at most 2 decimal places/);
    await bad({ title: 'x', price: { amount: 5, currency: 'GBP' } }, /price.currency/);
    await bad({ title: 'x', customer_amount: { min: 50, max: 10 } }, /min must not be above/);
    await bad({ title: 'x', amount: 1, methods: ['BTC'] }, /BTC/);
    await bad({ title: 'x', amount: 1, expires_at: new Date(T0 - 1000).toISOString() }, /future/);
    assert.equal((await fetch(`${p.url}/l/0OIl-nope`)).status, 404);
    assert.equal((await fetch(`${p.url}/l/zzzzzzzzzzz`)).status, 404);
  });

  test('a choice that finishes while another is counting is still counted: two choices never pass a cap of one', async (t) => {
    const { p, createLink } = await setup(t, store);
    const link = await createLink({ title: 'One at a time', amount: 100, methods: ['UPI'] });
    const slug = pathOf(link).slice('/l/'.length);
    const app = p.app;
    // A waits inside create until B has counted; B's count answers only once A has finished,
    // the interleaving two customers on a busy node can hit.
    let openA!: () => void;
    const gateA = new Promise<void>((r) => (openA = r));
    let doneA!: () => void;
    const finishedA = new Promise<void>((r) => (doneA = r));
    let creates = 0;
    let counts = 0;
    const intents: typeof app.intents = Object.create(app.intents);
    intents.create = async (...args) => {
      if (creates++ === 0) await gateA;
      return app.intents.create(...args);
    };
    const countAfterA = (builder: any): any =>
      new Proxy(builder, {
        get(target, prop) {
          const value = target[prop];
          if (typeof value !== 'function') return value;
          if (prop === 'executeTakeFirstOrThrow') {
            return async () => {
              const result = await value.call(target);
              if (counts++ === 1) {
                openA();
                await finishedA;
              }
              return result;
            };
          }
          return (...args: unknown[]) => {
            const out = value.apply(target, args);
            return out && typeof out === 'object' && 'executeTakeFirstOrThrow' in out ? countAfterA(out) : out;
          };
        },
      });
    const db = new Proxy(app.db, {
      get(target, prop) {
        const value = (target as any)[prop];
        if (prop === 'selectFrom') return (table: any) => (table === 'intents' ? countAfterA(value.call(target, table)) : value.call(target, table));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const links = createLinkService({ db, clock: app.clock, random: app.random, intents, merchants: app.merchants, enabledMethods: () => ['UPI'], publicUrl: 'https://pay.example.com', maxOpenIntents: 1 });
    const a = links.choose(slug, { method: 'UPI' });
    a.finally(doneA).catch(() => {});
    for (let i = 0; i < 500 && creates === 0; i++) await new Promise((r) => setTimeout(r, 2));
    assert.equal(creates, 1, 'A reached create');
    const b = links.choose(slug, { method: 'UPI' }).then(
      () => 'created',
      (err) => err.code,
    );
    assert.ok((await a).intent_id);
    assert.equal(await b, 'RATE_LIMITED', 'B counted A, which committed after B\'s count began');
    assert.equal(creates, 1);
  });

  test('anonymous floods against a link page meet 429 and never exhaust the unique-amount pool', async (t) => {
    // The shipped per-IP default (50/s, burst 100); a link holds at most 5 unpaid intents.
    const { p, m, createLink } = await setup(t, store, { server: { publicRateLimit: { perSecond: 50, burst: 100 } }, links: { maxOpenIntents: 5, rateLimit: { perSecond: 0.5, burst: 10 } } });
    const link = await createLink({ title: 'counter', customer_amount: { min: 1, max: 1000 }, methods: ['UPI'] });
    const statuses = new Map<number, number>();
    let sent = 0;
    const worker = async () => {
      while (sent < 300) {
        sent++;
        // Half of them from "different" addresses the server does not trust (no proxy configured): one bucket still.
        const r = await choose(p, link, { currency: 'UPI', amount: '100' }, sent % 2 ? { 'x-forwarded-for': `203.0.113.${sent % 250}` } : {});
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        await r.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    // Never more than maxOpenIntents (a choice committing while others count may refuse one more, never admit one).
    const created = statuses.get(303) ?? 0;
    assert.ok(created >= 1 && created <= 5, `at most maxOpenIntents intents: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.equal(statuses.get(429) ?? 0, 300 - created, 'everything else is 429');
    assert.equal((await intentsOf(p, m.headers, link.link_id)).length, created);
    // The pool around that amount is not exhausted: the merchant's own creates still get unique amounts.
    for (let i = 0; i < 20; i++) {
      const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 100, currency: 'UPI', order_id: `ORD-${i}` }, headers: m.headers });
      assert.equal(r.status, 200, r.text);
    }
    // The page itself is limited per IP too.
    let limited = 0;
    for (let i = 0; i < 120 && limited === 0; i++) if ((await fetch(p.url + pathOf(link))).status === 429) limited++;
    assert.equal(limited, 1);
  });
});

test('behind a trusted proxy each customer has its own per-IP bucket on a link page, and each link its own limit on choices, whatever the addresses', async (t) => {
  const { p, m, createLink } = await setup(t, testStore('sqlite'), {
    server: { trustedProxies: ['127.0.0.1'], publicRateLimit: { perSecond: 0.01, burst: 5 } },
    links: { maxOpenIntents: 20, rateLimit: { perSecond: 0.01, burst: 3 } },
  });
  const link = await createLink({ title: 'counter', customer_amount: { min: 1, max: 1000 }, methods: ['UPI'] });
  const other = await createLink({ title: 'Blue saree', amount: 499, methods: ['UPI'] });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  // Client A spends its burst of 5 on the page; B, behind the same proxy, is not slowed by it.
  const a: number[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await fetch(p.url + pathOf(link), { headers: from('198.51.100.1') });
    await r.arrayBuffer();
    a.push(r.status);
    if (r.status === 429) assert.ok(Number(r.headers.get('retry-after')) > 0, 'Retry-After says when to come back');
  }
  assert.deepEqual(a, [200, 200, 200, 200, 200, 429]);
  assert.equal((await fetch(p.url + pathOf(link), { headers: from('198.51.100.2') })).status, 200, 'B has its own bucket');

  // Five customers at five addresses, each with tokens to spare: the link starts only its burst of 3.
  const choices: number[] = [];
  for (let i = 10; i < 15; i++) {
    const r = await choose(p, link, { currency: 'UPI', amount: '100' }, from(`198.51.100.${i}`));
    const text = await r.text();
    choices.push(r.status);
    if (r.status === 429) assert.match(text, /Many people are paying with this link right now/);
  }
  assert.deepEqual(choices, [303, 303, 303, 429, 429]);
  assert.equal((await intentsOf(p, m.headers, link.link_id)).length, 3);
  // The limit is the link's own: another link still takes a customer.
  assert.equal((await choose(p, other, { currency: 'UPI' }, from('198.51.100.20'))).status, 303);
});

forEachStore((store) => {
  test('payd links create | list | deactivate | activate: one call each into the same service as the API', async (t) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant('Stall');
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    const created = await payd(['links', 'create', '--title', 'counter', '--min', '10', '--max', '5000', '--methods', 'UPI', '--json'], { cwd: p.dir });
    assert.equal(created.code, 0, created.err);
    const link = created.json();
    assert.deepEqual([link.title, link.customer_amount, link.methods, link.status], ['counter', { min: 10, max: 5000, currency: 'INR' }, ['UPI'], 'active']);
    const fixed = await payd(['links', 'create', '--title', 'Blue saree', '--amount', '499'], { cwd: p.dir });
    assert.equal(fixed.code, 0, fixed.err);
    assert.match(fixed.err, /Forward https:\/\/pay\.example\.com\/l\/\w+, or print its QR code: https:\/\/pay\.example\.com\/l\/\w+\/qr\.png/);
    const neither = await payd(['links', 'create', '--title', 'x'], { cwd: p.dir });
    assert.notEqual(neither.code, 0);
    assert.match(neither.err, /either a fixed price or a customer-entered amount/);

    const off = await payd(['links', 'deactivate', new URL(link.url).pathname.slice(3)], { cwd: p.dir });
    assert.equal(off.code, 0, off.err);
    assert.match(off.out, /turned off/);
    const listed = await payd(['links', 'list', '--json'], { cwd: p.dir });
    assert.deepEqual(listed.json().map((l: any) => [l.title, l.status]).sort(), [['Blue saree', 'active'], ['counter', 'inactive']]);
    const api = await p.api('GET', `/api/v1/payment-links/${link.link_id}`, { headers: m.headers });
    assert.equal(api.body.status, 'inactive', 'the API sees what the CLI did');
    assert.equal((await payd(['links', 'activate', link.link_id], { cwd: p.dir })).code, 0);
    assert.equal((await p.api('GET', `/api/v1/payment-links/${link.link_id}`, { headers: m.headers })).body.status, 'active');

    // A second merchant: the link must name one.
    await p.merchant('Second');
    const ambiguous = await payd(['links', 'create', '--title', 'x', '--amount', '1'], { cwd: p.dir });
    assert.notEqual(ambiguous.code, 0);
    assert.match(ambiguous.err, /--merchant/);
    const named = await payd(['links', 'create', '--title', 'x', '--amount', '1', '--merchant', m.clientId, '--json'], { cwd: p.dir });
    assert.equal(named.code, 0, named.err);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { startPayd, testClock } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

// On both stores: SQLite and PostgreSQL (test/helpers/stores.ts).
forEachStore((store) => {
  const T0 = Date.parse('2026-11-22T10:00:00.000Z');

  test('list: newest first, only the caller\'s intents, pages stay correct while new intents are created', async (t) => {
    const clock = testClock(T0);
    const p = await startPayd({ store, clock });
    t.after(() => p.close());
    const a = await p.merchant('A');
    const b = await p.merchant('B');
    const create = async (m: typeof a, order: string, currency = 'UPI', amount = 10) => {
      clock.advance(1000);
      const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency, order_id: order }, headers: m.headers });
      assert.equal(r.status, 200);
      return r.body;
    };
    const mine: string[] = [];
    for (let i = 0; i < 25; i++) {
      mine.push((await create(a, `a-${i}`, i % 5 === 0 ? 'SOL' : 'UPI')).intent_id);
      if (i % 3 === 0) await create(b, `b-${i}`);
    }
    const list = (q: string, m = a) => p.api('GET', `/api/v1/intents${q}`, { headers: m.headers });

    const first = await list('?limit=10');
    assert.equal(first.status, 200);
    assert.equal(first.body.data.length, 10);
    assert.equal(first.body.has_more, true);
    assert.equal(typeof first.body.next_cursor, 'string');
    // The fetch shape, newest first.
    const fetched = await p.api('GET', `/api/v1/intents/${mine[24]}`, { headers: a.headers });
    assert.deepEqual(first.body.data[0], fetched.body);

    // New intents arrive between pages: the following pages neither repeat nor skip anything.
    const seen = first.body.data.map((x: any) => x.intent_id);
    let cursor = first.body.next_cursor;
    let pages = 1;
    for (;;) {
      await create(a, `late-${pages}`);
      const page = await list(`?limit=10&cursor=${encodeURIComponent(cursor)}`);
      assert.equal(page.status, 200);
      seen.push(...page.body.data.map((x: any) => x.intent_id));
      pages++;
      if (!page.body.has_more) {
        assert.equal(page.body.next_cursor, null);
        break;
      }
      cursor = page.body.next_cursor;
      assert.ok(pages < 10, 'pagination does not end');
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...mine].reverse());

    // Default page size is 20; the other merchant sees only its own 9.
    assert.equal((await list('')).body.data.length, 20);
    const theirs = await list('?limit=100', b);
    assert.equal(theirs.body.data.length, 9);
    assert.ok(theirs.body.data.every((x: any) => x.order_id.startsWith('b-')));
    assert.equal(theirs.body.has_more, false);
  });

  test('list filters: status, currency, order_id and a created_at window', async (t) => {
    const clock = testClock(T0);
    const p = await startPayd({ store, clock, config: { intents: { ttlSeconds: 3600 } } });
    t.after(() => p.close());
    const m = await p.merchant();
    const mk = async (order: string, currency: string) => {
      clock.advance(60_000);
      return (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 5, currency, order_id: order }, headers: m.headers })).body;
    };
    const i1 = await mk('o1', 'UPI'); // 10:01
    const i2 = await mk('o2', 'USDT_TRC20'); // 10:02
    const i3 = await mk('o3', 'UPI'); // 10:03
    const i4 = await mk('o4', 'SOL'); // 10:04
    await p.api('POST', `/api/v1/intents/${i2.intent_id}/cancel`, { headers: m.headers });
    const ids = async (q: string) => {
      const r = await p.api('GET', `/api/v1/intents?${q}`, { headers: m.headers });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.map((x: any) => x.order_id);
    };
    assert.deepEqual(await ids('status=canceled'), ['o2']);
    assert.deepEqual(await ids('status=pending'), ['o4', 'o3', 'o1']);
    assert.deepEqual(await ids('currency=UPI'), ['o3', 'o1']);
    assert.deepEqual(await ids('order_id=o3'), ['o3']);
    assert.deepEqual(await ids('created_from=2026-11-22T10:02:00.000Z&created_to=2026-11-22T10:04:00.000Z'), ['o3', 'o2']);
    assert.deepEqual(await ids('currency=UPI&status=pending&limit=1'), ['o3']);
    // Past expires_at a pending intent lists as expired, as the fetch reports it.
    clock.advance(3600_000 - 3 * 60_000);
    assert.deepEqual(await ids('status=expired'), ['o1']);
    assert.deepEqual(await ids('status=pending'), ['o4', 'o3']);
    assert.ok([i1, i3, i4].every((x) => typeof x.intent_id === 'string'));
  });

  test('list: bad parameters are 400 INVALID_REQUEST naming each field', async (t) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant();
    const bad = async (q: string, field: string) => {
      const r = await p.api('GET', `/api/v1/intents?${q}`, { headers: m.headers });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'INVALID_REQUEST');
      assert.ok(r.body.errors.some((e: any) => e.field === field), `${q}: ${JSON.stringify(r.body.errors)}`);
    };
    await bad('limit=0', 'limit');
    await bad('limit=101', 'limit');
    await bad('limit=ten', 'limit');
    await bad('limit=5.5', 'limit');
    await bad('status=paid', 'status');
    await bad('currency=BTC', 'currency');
    await bad('created_from=yesterday', 'created_from');
    await bad('created_to=2026-13-01T00:00:00Z', 'created_to');
    await bad('cursor=not-a-cursor', 'cursor');
    await bad(`cursor=${Buffer.from('{"x":1}').toString('base64url')}`, 'cursor');
    await bad('statuses=pending', 'statuses');
    await bad('limit=1&limit=2', 'limit');
    await bad('order_id=', 'order_id');
    // Credentials are checked before parameters.
    const anon = await p.api('GET', '/api/v1/intents?limit=0');
    assert.equal(anon.status, 401);
    assert.equal(anon.body.code, 'AUTH_INVALID_HEADERS');
    assert.equal((await p.api('POST', '/api/v1/intents', { headers: m.headers })).status, 405);
  });
});

test('list is index-backed: the query walks one merchant\'s slice of an index', async (t) => {
  const p = await startPayd();
  t.after(() => p.close());
  const now = Date.now();
  const plans: string[] = [];
  const db = new SQLite(p.app.dbFile, { readonly: true });
  t.after(() => db.close());
  const inputs = [
    { limit: 20 },
    { limit: 20, status: 'pending' as const },
    { limit: 20, status: 'expired' as const },
    { limit: 20, status: 'canceled' as const },
    { limit: 20, currency: 'UPI' as const, createdFrom: now - 1000, createdTo: now },
    { limit: 20, cursor: Buffer.from(JSON.stringify([now, 'ffffffff-ffff-4fff-bfff-ffffffffffff'])).toString('base64url') },
  ];
  for (const input of inputs) {
    const c = p.app.listing.query('6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10', input, now).compile();
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(...(c.parameters as unknown[])) as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
    plans.push(plan);
    assert.match(plan, /USING INDEX intents_merchant_created \(merchant_id=/, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE/, `sorts instead of walking the index: ${plan}`);
  }
});

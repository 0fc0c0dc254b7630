import assert from 'node:assert/strict';
import { test } from 'node:test';
import { responseChecker } from '../helpers/openapi.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { forEachStore } from '../helpers/stores.ts';

// On both stores: SQLite and PostgreSQL (test/helpers/stores.ts).
forEachStore((store) => {
  const upiCredit = (p: PaydHarness, amount: number, txRef: string) => {
    const now = p.clock.now();
    return p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(amount * 100)), txRef, occurredAt: now, observedAt: now, source: 'imap' });
  };

  test('events: the same ids and bodies as the webhooks, in the order they were written', async (t) => {
    const receiver = await startReceiver();
    const p = await startPayd({ store, workers: true });
    t.after(async () => {
      await p.close();
      await receiver.close();
    });
    const m = await p.merchant('Shop', receiver.url);
    const other = await p.merchant('Other');
    const create = async (h: Record<string, string>, order: string, amount: number, currency = 'UPI') =>
      (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency, order_id: order }, headers: h })).body;

    const a = await create(m.headers, 'a', 10);
    const b = await create(m.headers, 'b', 20.5);
    const tiny = await create(m.headers, 'tiny', 0.000000001, 'SOL');
    const x = await create(other.headers, 'x', 30);
    await upiCredit(p, a.pay_amount, 'UTR-A');
    await p.api('POST', `/api/v1/intents/${b.intent_id}/cancel`, { headers: m.headers });
    await p.api('POST', `/api/v1/intents/${tiny.intent_id}/cancel`, { headers: m.headers });
    await upiCredit(p, x.pay_amount, 'UTR-X'); // the other merchant's
    await p.app.events.enqueueTest(m.clientId); // not a business event: not in the feed
    const hooks = await receiver.waitFor(4, 5000);
    // Each webhook is as the document's `webhooks` describe it.
    for (const h of hooks) assert.equal(responseChecker().checkWebhook(JSON.parse(h.body)), undefined);

    const r = await p.api('GET', '/api/v1/events', { headers: m.headers });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.map((e: any) => [e.type, e.data.intent_id]), [
      ['payment.success', a.intent_id],
      ['intent.canceled', b.intent_id],
      ['intent.canceled', tiny.intent_id],
    ]);
    assert.equal(r.body.has_more, false);
    assert.equal(r.body.next_cursor, r.body.data[2].id);
    // Each entry is the webhook that was sent: same id, same type, same data bytes.
    for (const e of r.body.data) {
      const hook = hooks.find((h) => h.headers['webhook-id'] === e.id);
      assert.ok(hook, `no webhook with id ${e.id}`);
      const sent = JSON.parse(hook.body);
      assert.equal(sent.type, e.type);
      assert.equal(sent.timestamp, e.created_at);
      assert.deepEqual(sent.data, e.data);
      const dataText = hook.body.slice(hook.body.indexOf('"data":') + 7, -1);
      assert.ok(r.text.includes(`"data":${dataText}}`), 'data is byte-for-byte the webhook body');
    }
    // Plain decimals survive: 1 lamport is 0.000000001, never 1e-9.
    assert.match(r.text, /"amount":0\.000000001,/);

    assert.deepEqual((await p.api('GET', '/api/v1/events?type=intent.canceled', { headers: m.headers })).body.data.map((e: any) => e.data.intent_id), [b.intent_id, tiny.intent_id]);
    const theirs = await p.api('GET', '/api/v1/events', { headers: other.headers });
    assert.deepEqual(theirs.body.data.map((e: any) => e.type), ['payment.success']);
  });

  test('events: a merchant that was down replays from its last seen id and misses nothing, for at least 30 days', async (t) => {
    const clock = testClock(Date.parse('2026-11-22T10:00:00.000Z'));
    const p = await startPayd({ store, clock, config: { intents: { ttlSeconds: 600 } } });
    t.after(() => p.close());
    const m = await p.merchant();
    const feed = (q: string) => p.api('GET', `/api/v1/events${q}`, { headers: m.headers });
    const create = async (order: string, amount: number) => (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'UPI', order_id: order }, headers: m.headers })).body;

    // The merchant saw the first event, then went down.
    const first = await create('o-0', 100);
    await upiCredit(p, first.pay_amount, 'UTR-0');
    const seen = (await feed('')).body.data.map((e: any) => e.id);
    assert.equal(seen.length, 1);
    let lastSeen = seen[0];

    // While it was down: settlements, cancels and expiries, all within the same milliseconds.
    // `written` is the order in which this test caused them (the clock stands still, so
    // timestamps cannot tell them apart).
    const written: string[] = [];
    const eventOf = async (intentId: string) => (await p.app.events.forIntent(intentId)).map((e) => e.event_id).filter((id) => !written.includes(id));
    const expiring: string[] = [];
    for (let i = 1; i <= 12; i++) {
      const intent = await create(`o-${i}`, 100 + i);
      if (i % 3 === 0) await p.api('POST', `/api/v1/intents/${intent.intent_id}/cancel`, { headers: m.headers });
      else if (i % 3 === 1) await upiCredit(p, intent.pay_amount, `UTR-${i}`);
      else expiring.push(intent.intent_id);
      if (i % 3 !== 2) written.push(...(await eventOf(intent.intent_id)));
    }
    clock.advance(600_000);
    await p.app.intents.expireDue();
    const expiries = (await Promise.all(expiring.map(eventOf))).flat();
    assert.equal(written.length, 8);
    assert.equal(expiries.length, 4);

    // Back up 31 days later: it pages from its last seen id, 5 at a time, with more events
    // arriving between its pages.
    clock.advance(31 * 86400_000);
    const replayed: string[] = [];
    let late = '';
    for (let page = 0; ; page++) {
      assert.ok(page < 10, 'catch-up does not end');
      const r = await feed(`?after=${lastSeen}&limit=5`);
      assert.equal(r.status, 200);
      replayed.push(...r.body.data.map((e: any) => e.id));
      lastSeen = r.body.next_cursor;
      if (page === 0) {
        const lateIntent = await create('late', 500);
        await upiCredit(p, lateIntent.pay_amount, 'UTR-LATE');
        late = (await p.app.events.forIntent(lateIntent.intent_id))[0].event_id;
      }
      if (!r.body.has_more) break;
    }
    // In written order; the four expiries of one housekeeping run come in the order it wrote them.
    assert.equal(replayed.length, 13);
    assert.deepEqual(replayed.slice(0, 8), written);
    assert.deepEqual(new Set(replayed.slice(8, 12)), new Set(expiries));
    assert.equal(replayed[12], late);
    // Nothing new: an empty page that keeps the position.
    const idle = await feed(`?after=${lastSeen}`);
    assert.deepEqual(idle.body, { data: [], has_more: false, next_cursor: lastSeen });
    assert.equal(first.status, 'pending');
  });

  test('events: bad parameters are 400 INVALID_REQUEST; another merchant\'s event id is not a position', async (t) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant();
    const other = await p.merchant('Other');
    const intent = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1, currency: 'UPI', order_id: 'o' }, headers: other.headers })).body;
    await p.api('POST', `/api/v1/intents/${intent.intent_id}/cancel`, { headers: other.headers });
    const theirEvent = (await p.api('GET', '/api/v1/events', { headers: other.headers })).body.data[0].id;
    const bad = async (q: string, field: string) => {
      const r = await p.api('GET', `/api/v1/events?${q}`, { headers: m.headers });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'INVALID_REQUEST');
      assert.ok(r.body.errors.some((e: any) => e.field === field), `${q}: ${JSON.stringify(r.body.errors)}`);
    };
    await bad(`after=${theirEvent}`, 'after');
    await bad('after=evt_nope', 'after');
    await bad('type=webhook.test', 'type');
    await bad('limit=0', 'limit');
    await bad('limit=1000', 'limit');
    await bad('since=1', 'since');
    assert.equal((await p.api('GET', '/api/v1/events')).status, 401);
    assert.equal((await p.api('POST', '/api/v1/events', { headers: m.headers })).status, 405);
  });
});

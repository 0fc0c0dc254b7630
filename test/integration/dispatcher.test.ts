// Webhook dispatcher rules, against a real receiver on 127.0.0.1 and a real SQLite file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeTx } from '../../src/db/open.ts';
import { createOutbox } from '../../src/services/events/outbox.ts';
import { systemRandom } from '../../src/system.ts';
import { createDispatcher } from '../../src/webhooks/dispatcher.ts';
import { undiciPost } from '../helpers/undici-post.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startPayd, testClock } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { forEachStore } from '../helpers/stores.ts';

// On both stores: SQLite and PostgreSQL (test/helpers/stores.ts).
forEachStore((store) => {
  const outbox = createOutbox({ clock: { now: () => Date.now() }, random: systemRandom });

  test("an intent's events are delivered in the order they were written, even when the first needs a retry", async (t) => {
    const receiver = await startReceiver((_r, n) => (n === 1 ? 500 : 200));
    t.after(() => receiver.close());
    const p = await startPayd({ store, workers: true });
    t.after(() => p.close());
    const m = await p.merchant('Shop', receiver.url);
    const merchant = await p.app.merchants.get(m.clientId);
    const { intent_id } = await p.app.intents.create(merchant, { amount: 10, currency: 'UPI', order_id: 'A' });
    const first = await writeTx(p.app.db, (tx) => outbox.enqueue(tx, m.clientId, intent_id, 'intent.expired', { intent_id }));
    const second = await writeTx(p.app.db, (tx) => outbox.enqueue(tx, m.clientId, intent_id, 'payment.success', { intent_id }));
    p.app.dispatcher.wake();
    const got = await receiver.waitFor(3, 15_000);
    assert.deepEqual(
      got.map((r) => r.headers['webhook-id']),
      [first, first, second],
      'payment.success waits for intent.expired to be delivered',
    );
  });

  test('a database error while loading the merchant postpones the event; it is never marked failed', async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant('Shop', receiver.url);
    const clock = testClock();
    let failures = 1;
    const merchants = {
      ...p.app.merchants,
      async get(id: string) {
        if (failures-- > 0) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        return p.app.merchants.get(id);
      },
    };
    const dispatcher = createDispatcher({ db: p.app.db, merchants, clock, random: systemRandom, log: silentLogger(), post: undiciPost, timeoutMs: 2000, retrySchedule: [1], concurrency: 1, allowInsecureUrls: false, allowLoopback: true });
    const id = await p.app.events.enqueueTest(m.clientId);
    await dispatcher.deliverNow(id);
    const after = await p.app.events.show(id);
    assert.equal(after.status, 'pending');
    assert.equal(after.attempts, 0, 'no attempt counted against the receiver');
    assert.equal(after.last_error, null);
    assert.equal(receiver.received.length, 0);
    clock.advance(6_000);
    await dispatcher.deliverNow(id);
    assert.equal((await p.app.events.show(id)).status, 'delivered');
  });

  test('replaying an event while its attempt is in flight never sends it twice at once', async (t) => {
    // The first request hangs until the 2 s timeout; later ones answer at once.
    const receiver = await startReceiver((_r, n) => (n === 1 ? 'hang' : 200));
    t.after(() => receiver.close());
    const p = await startPayd({ store, workers: true });
    t.after(() => p.close());
    const m = await p.merchant('Shop', receiver.url);
    const merchant = await p.app.merchants.get(m.clientId);
    const { intent_id } = await p.app.intents.create(merchant, { amount: 10, currency: 'UPI', order_id: 'A' });
    const id = await writeTx(p.app.db, (tx) => outbox.enqueue(tx, m.clientId, intent_id, 'payment.success', { intent_id }));
    p.app.dispatcher.wake();
    await receiver.waitFor(1, 5_000);
    assert.deepEqual(await p.app.events.replay({ eventId: id }), [id]);
    p.app.dispatcher.wake();
    const got = await receiver.waitFor(2, 15_000);
    assert.ok(got[1].at - got[0].at >= 1500, `the replay was sent ${got[1].at - got[0].at} ms after the hanging attempt began`);
    const ev = await waitFor(async () => {
      const e = await p.app.events.show(id);
      return e.status === 'delivered' && e;
    }, 5_000, 'the replay to be recorded as delivered');
    assert.equal(receiver.received.length, 2);
    assert.deepEqual(
      ev.attempts_log.map((a) => a.status_code),
      [null, 200],
    );
  });

  test("attempt rows never keep the URL's query string", async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const p = await startPayd({ store, workers: true });
    t.after(() => p.close());
    const m = await p.merchant('Shop', `${receiver.url}?token=s3cret-token`);
    const id = await p.app.events.enqueueTest(m.clientId);
    p.app.dispatcher.wake();
    const ev = await waitFor(async () => {
      const e = await p.app.events.show(id);
      return e.status === 'delivered' && e;
    }, 5_000, 'the delivery to be recorded');
    assert.equal(ev.attempts_log.length, 1);
    assert.equal(ev.attempts_log[0].url, `${receiver.url}?…`);
    assert.doesNotMatch(JSON.stringify(ev), /s3cret-token/);
  });
});

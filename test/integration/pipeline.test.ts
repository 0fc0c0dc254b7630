import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { ReceivedPayment } from '../../src/domain/payment.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { stopwatch } from '../helpers/stopwatch.ts';
import { RECEIVERS, startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

// On both stores: SQLite and PostgreSQL (test/helpers/stores.ts).
forEachStore((store) => {
  async function setup(t: import('node:test').TestContext, o: Parameters<typeof startPayd>[0] = {}, respond?: Parameters<typeof startReceiver>[0]) {
    const receiver = await startReceiver(respond);
    const p = await startPayd({ store, workers: true, ...o, config: { webhooks: { retrySchedule: [0.1, 0.1, 0.1], timeoutSeconds: 1 }, ...(o.config ?? {}) } });
    t.after(async () => {
      await p.close();
      await receiver.close();
    });
    const m = await p.merchant('Shop', receiver.url);
    const create = async (body: Record<string, unknown>) => {
      const r = await p.api('POST', '/api/v1/intents/create-payment', { body, headers: m.headers });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    };
    const fetchIntent = async (id: string) => (await p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers })).body;
    return { p, m, receiver, create, fetchIntent };
  }

  const upi = (p: PaydHarness, amountMinor: bigint, txRef: string, over: Partial<ReceivedPayment> = {}): ReceivedPayment => ({
    method: 'UPI',
    receiver: 'shop@hdfcbank',
    amountMinor,
    txRef,
    occurredAt: p.clock.now(),
    observedAt: p.clock.now(),
    source: 'imap',
    ...over,
  });

  test('a matching payment settles once and a signed payment.success reaches the merchant within a second', async (t) => {
    const { p, m, receiver, create, fetchIntent } = await setup(t);
    const intent = await create({ amount: 100.5, currency: 'UPI', order_id: 'ORD-1' });
    const clock = stopwatch();
    const outcome = await p.app.ledger.ingest(upi(p, 10050n, '412345678901'));
    assert.equal(outcome.kind, 'settled');
    const [hook] = await receiver.waitFor(1, 10_000);
    const took = clock.stop();
    assert.ok(took < 1000, `webhook took ${took.toFixed(0)} ms of this process's running time`);

    const fetched = await fetchIntent(intent.intent_id);
    assert.equal(fetched.status, 'settled');
    assert.equal(fetched.transaction_hash, '412345678901');
    assert.match(fetched.verified_at, /Z$/);

    // Verified the way a merchant would, with the standardwebhooks library.
    const payload = new Webhook(m.webhookSecret).verify(hook.body, {
      'webhook-id': String(hook.headers['webhook-id']),
      'webhook-timestamp': String(hook.headers['webhook-timestamp']),
      'webhook-signature': String(hook.headers['webhook-signature']),
    }) as any;
    assert.equal(payload.type, 'payment.success');
    assert.match(payload.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(payload.data, fetched);
    assert.equal(payload.data.livemode, true);

    // The same observation again changes nothing.
    assert.equal((await p.app.ledger.ingest(upi(p, 10050n, '412345678901'))).kind, 'duplicate');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.received.length, 1);
    const payments = await p.app.payments.list({});
    assert.equal(payments.length, 1);
  });

  test('concurrent identical observations settle one intent once', async (t) => {
    const { p, create, fetchIntent } = await setup(t);
    const intent = await create({ amount: 10, currency: 'UPI', order_id: 'c' }); // pay_amount ₹10.01: never a whole rupee
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => p.app.ledger.ingest(upi(p, 1001n, '500000000001'))));
    assert.deepEqual(outcomes.map((o) => o.kind).sort(), ['duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'settled']);
    assert.equal((await fetchIntent(intent.intent_id)).status, 'settled');
    assert.equal((await p.app.events.list({})).filter((e) => e.type === 'payment.success').length, 1);
    // A second, different payment of the same amount does not settle the intent again: it is held on it.
    const second = await p.app.ledger.ingest(upi(p, 1001n, '500000000002'));
    assert.deepEqual([second.kind, second.kind === 'held' && second.reason], ['held', 'after_settlement']);
    assert.equal((await fetchIntent(intent.intent_id)).transaction_hash, '500000000001');
  });

  test('payments that match nothing are kept with the reason', async (t) => {
    const clock = testClock(Date.parse('2026-11-22T10:00:00.000Z'));
    const { p, create, fetchIntent } = await setup(t, { clock, config: { intents: { ttlSeconds: 600 } } });
    const intent = await create({ amount: 10, currency: 'UPI', order_id: 'u' });
    const wrong = await p.app.ledger.ingest(upi(p, 1002n, '600000000001'));
    assert.deepEqual([wrong.kind, wrong.kind === 'unmatched' && wrong.reason], ['unmatched', 'no_matching_intent']);
    const early = await p.app.ledger.ingest(upi(p, 1001n, '600000000002', { occurredAt: clock.now() - 120_000 }));
    assert.deepEqual([early.kind, early.kind === 'unmatched' && early.reason], ['unmatched', 'too_early']);
    // Late beyond the amount's reservation (expires_at + the 24 h cooldown): no longer this intent's.
    const late = await p.app.ledger.ingest(upi(p, 1001n, '600000000003', { occurredAt: clock.now() + 601_000 + 86_400_000 }));
    assert.deepEqual([late.kind, late.kind === 'unmatched' && late.reason], ['unmatched', 'late']);
    assert.equal((await fetchIntent(intent.intent_id)).status, 'pending');
    const unmatched = await p.app.payments.list({ unmatched: true });
    assert.deepEqual(unmatched.map((u) => u.reason).sort(), ['late', 'no_matching_intent', 'too_early']);
    // An amount no intent could ask for is kept as a rejection, and its checkpoint still advances.
    const huge = await p.app.ledger.ingest(upi(p, 10n ** 38n, '600000000004'), { key: 'test:cp', value: { n: 4 } });
    assert.equal(huge.kind, 'rejected');
    assert.deepEqual((await p.app.payments.rejections()).map((r) => r.reason), ['amount_out_of_range']);
    assert.deepEqual(await p.app.ledger.loadCheckpoint('test:cp'), { n: 4 });
  });

  test('a payment made before expiry settles an intent even if payd saw it after expiry (backfill)', async (t) => {
    const clock = testClock(Date.parse('2026-11-22T10:00:00.000Z'));
    const { p, create, fetchIntent } = await setup(t, { clock, config: { intents: { ttlSeconds: 60 } } });
    const intent = await create({ amount: 10, currency: 'UPI', order_id: 'b' });
    const paidAt = clock.now() + 30_000;
    clock.advance(3600_000);
    await p.app.intents.expireDue();
    assert.equal((await fetchIntent(intent.intent_id)).status, 'expired');
    const o = await p.app.ledger.ingest(upi(p, 1001n, '700000000001', { occurredAt: paidAt }));
    assert.equal(o.kind, 'settled');
    assert.equal((await fetchIntent(intent.intent_id)).status, 'settled');
  });

  test('Solana Pay reference: an under-payment is credited and the intent waits for the rest; over-payment is fine', async (t) => {
    const { p, create, fetchIntent } = await setup(t);
    const a = await create({ amount: 1, currency: 'SOL', order_id: 'ref-a' });
    const sol = (txRef: string, amountMinor: bigint, references: string[]): ReceivedPayment => ({
      method: 'SOL',
      receiver: RECEIVERS.SOL,
      amountMinor,
      txRef,
      references,
      occurredAt: Date.now(),
      observedAt: Date.now(),
      source: 'solana',
    });
    const under = await p.app.ledger.ingest(sol('sig-under', 500_000_000n, ['SomeOtherKey111111111111111111111111111111', a.reference]));
    assert.equal(under.kind, 'credited');
    assert.equal((await fetchIntent(a.intent_id)).status, 'pending');
    assert.equal((await fetchIntent(a.intent_id)).amount_received, 0.5);
    assert.equal((await p.app.ledger.ingest(sol('sig-full', 1_000_000_000n, [a.reference]))).kind, 'settled');
    assert.deepEqual((await fetchIntent(a.intent_id)).payments.map((x: any) => [x.transaction_hash, x.status, x.reason]), [['sig-under', 'credited', null], ['sig-full', 'credited', 'overpaid']]);
    const b = await create({ amount: 2, currency: 'SOL', order_id: 'ref-b' });
    assert.equal((await p.app.ledger.ingest(sol('sig-over', 2_500_000_000n, [b.reference]))).kind, 'settled');
    const again = await p.app.ledger.ingest(sol('sig-again', 2_000_000_000n, [b.reference]));
    assert.deepEqual([again.kind, again.kind === 'held' && again.reason], ['held', 'after_settlement']);
    // Without a reference, the exact pay_amount (3.000001: never a whole SOL) still matches.
    const c = await create({ amount: 3, currency: 'SOL', order_id: 'ref-c' });
    assert.equal((await p.app.ledger.ingest(sol('sig-plain', 3_000_001_000n, []))).kind, 'settled');
    assert.equal((await fetchIntent(c.intent_id)).transaction_hash, 'sig-plain');
  });

  test('retries keep the same webhook-id, 410 stops, replay delivers again with the same id', async (t) => {
    let mode: 'flaky' | 'gone' | 'ok' = 'flaky';
    const { p, receiver, create } = await setup(t, {}, (_r, n) => (mode === 'flaky' ? (n < 3 ? 500 : 200) : mode === 'gone' ? 410 : 200));
    await create({ amount: 10, currency: 'UPI', order_id: 'r1' });
    await p.app.ledger.ingest(upi(p, 1001n, '800000000001'));
    const three = await receiver.waitFor(3, 5000);
    assert.equal(new Set(three.map((r) => r.headers['webhook-id'])).size, 1);
    const id = String(three[0].headers['webhook-id']);
    await waitFor(async () => (await p.app.events.show(id)).status === 'delivered', 5000, 'event status');
    const shown = await p.app.events.show(id);
    assert.deepEqual(shown.attempts_log.map((a) => a.status_code), [500, 500, 200]);

    mode = 'gone';
    await create({ amount: 11, currency: 'UPI', order_id: 'r2' });
    await p.app.ledger.ingest(upi(p, 1101n, '800000000002'));
    await receiver.waitFor(4);
    const goneId = String(receiver.received[3].headers['webhook-id']);
    await waitFor(async () => (await p.app.events.show(goneId)).status === 'failed', 5000, 'event status');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(receiver.received.length, 4, '410 must not be retried');

    mode = 'ok';
    assert.deepEqual(await p.app.events.replay({ eventId: goneId }), [goneId]);
    await receiver.waitFor(5);
    assert.equal(receiver.received[4].headers['webhook-id'], goneId);
    await waitFor(async () => (await p.app.events.show(goneId)).status === 'delivered', 5000, 'event status');
  });

  test('a hanging, resetting or redirecting receiver never blocks other deliveries; redirects are not followed', async (t) => {
    const { p, receiver, create } = await setup(t, { config: { webhooks: { retrySchedule: [], timeoutSeconds: 1 } } }, (r) => {
      const order = JSON.parse(r.body).data.order_id as string;
      return order === 'hang' ? 'hang' : order === 'reset' ? 'reset' : order === 'moved' ? 301 : 200;
    });
    for (const [i, order] of ['hang', 'reset', 'moved', 'fine'].entries()) {
      await create({ amount: 20 + i, currency: 'UPI', order_id: order });
      await p.app.ledger.ingest(upi(p, BigInt(2001 + i * 100), `90000000000${i}`));
    }
    await receiver.waitFor(4, 3000);
    const events = await waitFor(async () => {
      const all = await p.app.events.list({});
      return all.every((e) => e.status !== 'pending') ? all : null;
    }, 5000, 'every event to finish');
    const byOrder = Object.fromEntries(await Promise.all(events.map(async (e) => [(await p.app.events.show(e.event_id)).body as any, e] as const)).then((xs) => xs.map(([b, e]) => [b.data.order_id, e])));
    assert.equal(byOrder.fine.status, 'delivered');
    assert.equal(byOrder.hang.status, 'failed');
    assert.match(byOrder.hang.last_error, /timed out/);
    assert.equal(byOrder.reset.status, 'failed');
    assert.equal(byOrder.moved.status, 'failed');
    assert.match(byOrder.moved.last_error, /HTTP 301/);
    // The redirect target (port 1) was never contacted: only four requests, all to the receiver.
    assert.equal(receiver.received.length, 4);
  });

  test('during a webhook secret rotation both signatures are sent and either secret verifies', async (t) => {
    const { p, m, receiver, create } = await setup(t);
    const { webhook_secret } = await p.app.merchants.rotateWebhookSecret(m.clientId);
    await create({ amount: 10, currency: 'UPI', order_id: 'rot' });
    await p.app.ledger.ingest(upi(p, 1001n, '910000000001'));
    const [hook] = await receiver.waitFor(1);
    const headers = { 'webhook-id': String(hook.headers['webhook-id']), 'webhook-timestamp': String(hook.headers['webhook-timestamp']), 'webhook-signature': String(hook.headers['webhook-signature']) };
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.ok(new Webhook(webhook_secret).verify(hook.body, headers));
    assert.ok(new Webhook(m.webhookSecret).verify(hook.body, headers));
    assert.throws(() => new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(hook.body, headers));
  });

  test('manual settlement goes through the pipeline, is audited, and is refused twice or for a used reference', async (t) => {
    const { p, receiver, create, fetchIntent } = await setup(t);
    const a = await create({ amount: 10, currency: 'UPI', order_id: 'man-a' });
    const row = (await p.app.intents.find(a.intent_id))!;
    const manual = (txRef: string): ReceivedPayment => ({ ...upi(p, row.payAmountMinor, txRef), source: 'manual' });
    assert.equal((await p.app.ledger.ingestWith(manual('MANUAL-1'), undefined, { intentId: row.id, note: 'paid at counter' })).kind, 'settled');
    await receiver.waitFor(1);
    assert.equal((await fetchIntent(a.intent_id)).transaction_hash, 'MANUAL-1');
    const audit = await p.app.db.selectFrom('audit_log').selectAll().where('action', '=', 'intent.settle').execute();
    assert.equal(audit.length, 1);
    await assert.rejects(p.app.ledger.ingestWith(manual('MANUAL-2'), undefined, { intentId: row.id }), /already settled/);
    const b = await create({ amount: 12, currency: 'UPI', order_id: 'man-b' });
    await assert.rejects(p.app.ledger.ingestWith(manual('MANUAL-1'), undefined, { intentId: b.intent_id }), /already settled intent/);
    assert.equal((await fetchIntent(b.intent_id)).status, 'pending');
    assert.equal((await p.app.payments.list({})).length, 1, 'refused settlements leave no payment behind');
  });
});

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { payd } from '../helpers/cli.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function setup(t: { after: (fn: () => unknown) => void }, store: TestStore, clock = testClock(T0)) {
  const p = await startPayd({ store, clock, config: { intents: { ttlSeconds: 1800, amountReuseCooldownSeconds: 86400 } } });
  t.after(() => p.close());
  const m = await p.merchant();
  const create = async (order: string, amount = 100) => (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'UPI', order_id: order }, headers: m.headers })).body;
  const cancel = (id: string, headers = m.headers) => p.api('POST', `/api/v1/intents/${id}/cancel`, { headers });
  return { p, m, clock, create, cancel };
}

/** A UPI credit of `amount` rupees seen now, as the mailbox source would hand it to the ledger. */
const upiCredit = (p: PaydHarness, amount: number, txRef: string) => {
  const now = p.clock.now();
  return p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(amount * 100)), txRef, occurredAt: now, observedAt: now, source: 'imap' });
};

const eventsOf = async (p: PaydHarness, intentId: string) => (await p.app.events.forIntent(intentId)).map((e) => e.type);

// On both stores (test/helpers/stores.ts); the CLI beside the app uses the same store.
forEachStore((store) => {
  test('cancel: a pending intent becomes canceled with canceled_at and one intent.canceled event; again returns it unchanged', async (t) => {
    const { p, m, clock, create, cancel } = await setup(t, store);
    const intent = await create('o-1');
    clock.advance(5000);
    const r = await cancel(intent.intent_id);
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'canceled');
    assert.match(r.body.canceled_at, ISO_MS);
    assert.equal(r.body.canceled_at, new Date(T0 + 5000).toISOString());
    assert.equal(r.body.intent_id, intent.intent_id);
    const fetched = await p.api('GET', `/api/v1/intents/${intent.intent_id}`, { headers: m.headers });
    assert.deepEqual(fetched.body, r.body);

    clock.advance(5000);
    const again = await cancel(intent.intent_id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, r.body);
    assert.deepEqual(await eventsOf(p, intent.intent_id), ['intent.canceled']);
    const shown = await p.app.events.show((await p.app.events.forIntent(intent.intent_id))[0].event_id);
    assert.deepEqual((shown.body as any).data, r.body);

    // The customer's checkout page says so.
    const page = await fetch(`${p.url}/pay/${intent.intent_id}`);
    const html = await page.text();
    assert.match(html, /data-status="canceled"/);
    assert.match(html, /This payment request was canceled/);
    const state = await (await fetch(`${p.url}/pay/${intent.intent_id}/status`)).json();
    assert.equal(state.status, 'canceled');

    // Housekeeping never turns it into expired.
    clock.advance(3600_000);
    await p.app.intents.expireDue();
    assert.equal((await p.api('GET', `/api/v1/intents/${intent.intent_id}`, { headers: m.headers })).body.status, 'canceled');
    assert.deepEqual(await eventsOf(p, intent.intent_id), ['intent.canceled']);
  });

  test('cancel: only pending; settled and expired are 409 INTENT_NOT_CANCELABLE; others\' and unknown ids are 404', async (t) => {
    const { p, clock, create, cancel } = await setup(t, store);
    const settled = await create('s', 50);
    assert.equal((await upiCredit(p, settled.pay_amount, 'UTR-S')).kind, 'settled');
    const r = await cancel(settled.intent_id);
    assert.equal(r.status, 409);
    assert.equal(r.body.code, 'INTENT_NOT_CANCELABLE');
    assert.match(r.body.detail, /settled/);

    const expiring = await create('e', 60);
    clock.advance(1800_000);
    const e = await cancel(expiring.intent_id);
    assert.equal(e.status, 409);
    assert.equal(e.body.code, 'INTENT_NOT_CANCELABLE');
    assert.match(e.body.detail, /expired/);

    const other = await p.merchant('Other');
    const theirs = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 70, currency: 'UPI', order_id: 'x' }, headers: other.headers })).body;
    assert.equal((await cancel(theirs.intent_id)).body.code, 'INTENT_NOT_FOUND');
    assert.equal((await cancel(theirs.intent_id)).status, 404);
    assert.equal((await cancel('not-a-uuid')).status, 404);
    assert.equal((await p.api('GET', `/api/v1/intents/${theirs.intent_id}/cancel`, { headers: other.headers })).status, 405);
    assert.equal((await cancel(theirs.intent_id, {})).status, 401);
    // Nothing changed for the other merchant's intent.
    assert.equal((await p.api('GET', `/api/v1/intents/${theirs.intent_id}`, { headers: other.headers })).body.status, 'pending');
  });

  test('cancel: the pay_amount stays reserved through the cooldown; a later payment is held on it with reason canceled', async (t) => {
    const { p, m, clock, create, cancel } = await setup(t, store);
    const intent = await create('o-1', 100);
    assert.equal(intent.pay_amount, 100.01, 'never the whole ₹100.00');
    await cancel(intent.intent_id);
    // A new intent for the same amount does not get the canceled one's pay_amount…
    assert.equal((await create('o-2', 100)).pay_amount, 100.02);
    // …even after the canceled intent's expiry, until the cooldown has passed.
    clock.advance(1800_000 + 3600_000);
    assert.equal((await create('o-3', 100)).pay_amount, 100.03);

    clock.advance(-3600_000);
    const outcome = await upiCredit(p, 100.01, 'UTR-LATE');
    // Held for the merchant, no longer only in the operator's unmatched list.
    assert.deepEqual({ kind: outcome.kind, reason: (outcome as any).reason }, { kind: 'held', reason: 'canceled' });
    assert.equal((await p.app.payments.list({ unmatched: true })).length, 0);
    const held = (await p.app.heldPayments.listPayments({ status: 'held' })).items;
    assert.deepEqual(held.map((x) => [x.intentId, x.transactionHash, x.reason]), [[intent.intent_id, 'UTR-LATE', 'canceled']]);
    const after = await p.api('GET', `/api/v1/intents/${intent.intent_id}`, { headers: m.headers });
    assert.equal(after.body.status, 'canceled');
    assert.equal(after.body.transaction_hash, null);
    assert.deepEqual(await eventsOf(p, intent.intent_id), ['intent.canceled', 'payment.held']);

    clock.advance(86400_000);
    assert.equal((await create('o-4', 100)).pay_amount, 100.01);
  });

  test('cancel vs. settle at the same moment: exactly one wins and the other answers consistently', async (t) => {
    const { p, m, create, cancel } = await setup(t, store, testClock(T0));
    const tally = { canceled: 0, settled: 0 };
    // The payment is handed to the ledger right as the cancel request is sent, or a few event-loop
    // turns or milliseconds later, or the cancel is sent 250 ms after the payment: the close calls
    // are real races around the crossover, the two ends make sure both outcomes are exercised.
    const turns = async (n: number) => {
      for (let k = 0; k < n; k++) await new Promise((r) => setImmediate(r));
    };
    const offsets = [() => Promise.resolve(), () => turns(1), () => turns(2), () => turns(3), () => turns(5), () => turns(8), () => turns(13), () => sleep(1), () => sleep(5), () => sleep(250)];
    for (let i = 0; i < 30; i++) {
      const intent = await create(`race-${i}`, 200 + i);
      const k = i % (offsets.length + 1);
      const paidFirst = k === offsets.length;
      const cancelling = paidFirst ? sleep(250).then(() => cancel(intent.intent_id)) : cancel(intent.intent_id);
      const paying = k === 0 || paidFirst ? upiCredit(p, intent.pay_amount, `UTR-${i}`) : offsets[k]().then(() => upiCredit(p, intent.pay_amount, `UTR-${i}`));
      const [cr, po] = await Promise.all([cancelling, paying]);
      const fetched = (await p.api('GET', `/api/v1/intents/${intent.intent_id}`, { headers: m.headers })).body;
      const events = await eventsOf(p, intent.intent_id);
      if (cr.status === 200) {
        tally.canceled++;
        assert.equal(cr.body.status, 'canceled');
        assert.deepEqual({ kind: po.kind, reason: (po as any).reason }, { kind: 'held', reason: 'canceled' });
        assert.equal(fetched.status, 'canceled');
        // Same clock tick: the two events' order is not part of this check.
        assert.deepEqual([...events].sort(), ['intent.canceled', 'payment.held']);
      } else {
        tally.settled++;
        assert.equal(cr.status, 409);
        assert.equal(cr.body.code, 'INTENT_NOT_CANCELABLE');
        assert.equal(po.kind, 'settled');
        assert.equal(fetched.status, 'settled');
        assert.equal(fetched.transaction_hash, `UTR-${i}`);
        assert.deepEqual(events, ['payment.success']);
      }
    }
    assert.equal(tally.canceled + tally.settled, 30);
    assert.ok(tally.canceled > 0 && tally.settled > 0, JSON.stringify(tally));
    t.diagnostic(`cancel won ${tally.canceled}, settle won ${tally.settled}`);
  });

  test('cancel by the operator: payd intents cancel <id> goes through the same service', async (t) => {
    // The CLI runs on the real clock, so the intents are created on it too.
    const { p, create } = await setup(t, store, testClock(Date.now()));
    const intent = await create('cli-1');
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    const r = await payd(['intents', 'cancel', intent.intent_id, '--json'], { cwd: p.dir });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.json().status, 'canceled');
    assert.equal(r.json().intent_id, intent.intent_id);
    const again = await payd(['intents', 'cancel', intent.intent_id], { cwd: p.dir });
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /canceled/);
    const settledOne = await create('cli-2', 77);
    await upiCredit(p, settledOne.pay_amount, 'UTR-CLI');
    const refused = await payd(['intents', 'cancel', settledOne.intent_id], { cwd: p.dir });
    assert.equal(refused.code, 1);
    assert.match(refused.err, /only a pending intent can be canceled/);
    const listed = await payd(['intents', 'list', '--status', 'canceled', '--json'], { cwd: p.dir });
    assert.deepEqual(listed.json().map((x: any) => x.intent_id), [intent.intent_id]);
    const audit = await p.app.db.selectFrom('audit_log').select(['actor', 'action', 'subject']).where('action', '=', 'intent.cancel').execute();
    assert.deepEqual(audit, [{ actor: 'cli', action: 'intent.cancel', subject: intent.intent_id }]);
  });
});

// A held payment reaches the shopkeeper's Telegram chat with Accept /
// Refunded buttons, /held lists it, and a press is the same service call as the CLI's: through
// the real app, the fake Bot API and a merchant's webhook endpoint. Both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { SentMessage } from '../fakes/telegram.ts';
import { SHOP_CHAT, startNotifyingPayd, upiPayment } from '../helpers/notify.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

const buttonsOf = (s: SentMessage) => (s.reply_markup?.inline_keyboard ?? []).flat();
const tokenOf = (s: SentMessage, text: 'Accept' | 'Refunded') => buttonsOf(s).find((b) => b.text === text)!.callback_data;

forEachStore((store) => {
  test('a held payment: one payment.held message with buttons; /held → Accept settles once (payment.success once, audited); Refunded on another', async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const { p, tg } = await startNotifyingPayd(t, { store, notify: { telegram: { chatIds: [SHOP_CHAT] }, email: null } });
    const shop = await p.merchant('Hooked', receiver.url);
    const webhookTypes = () => receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    // The feed starts at the newest event on its first run: wait for that, then make history.
    await waitFor(async () => (await p.app.db.selectFrom('checkpoints').select('key').where('key', '=', 'notify:events').executeTakeFirst()) !== undefined, 10_000, 'the feed to start');

    /** A payment of the exact amount to a canceled intent: held (reason canceled). */
    const heldPayment = async (order: string, amount: number, ref: string) => {
      const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'UPI', order_id: order }, headers: shop.headers });
      assert.equal(r.status, 200, r.text);
      await p.app.cancels.cancel(r.body.intent_id, { actor: 'cli' });
      assert.equal((await p.app.ledger.ingest(upiPayment(p, BigInt(Math.round(r.body.pay_amount * 100)), ref))).kind, 'held');
      return r.body as { intent_id: string; pay_amount: number };
    };
    const a = await heldPayment('HELD-1', 120, '644444444444');
    const heldMessages = () => tg.sent.filter((s) => s.text.startsWith('Held, not credited'));
    const pushed = await waitFor(async () => heldMessages()[0], 10_000, 'the payment.held message');
    assert.equal(pushed.chat_id, String(SHOP_CHAT));
    assert.match(pushed.text, /^Held, not credited: ₹120\.\d\d for order HELD-1: arrived after the intent was canceled; accept it or mark it refunded\. Ref 644444444444\.$/);
    assert.deepEqual(buttonsOf(pushed).map((b) => b.text), ['Accept', 'Refunded']);

    // /held lists it, with its own buttons.
    tg.message(SHOP_CHAT, '/held');
    await waitFor(async () => heldMessages().length >= 2, 10_000, 'the answer to /held');
    const listed = heldMessages()[1]!;
    assert.equal(listed.text, pushed.text);
    assert.deepEqual(buttonsOf(listed).map((b) => b.text), ['Accept', 'Refunded']);
    assert.notEqual(tokenOf(listed, 'Accept'), tokenOf(pushed, 'Accept'));

    // Accept: the intent settles, the shop's server hears payment.success once, the chat is told.
    const press = tg.callback(SHOP_CHAT, tokenOf(listed, 'Accept'));
    await waitFor(async () => tg.answers.length >= 1, 10_000, 'the press to be answered');
    assert.equal(tg.answers[0]!.callback_query_id, (press.callback_query as { id: string }).id);
    assert.equal(tg.answers[0]!.text, 'Accepted.');
    const confirmation = await waitFor(async () => tg.sent.find((s) => s.text.startsWith('Accepted by')), 10_000, 'the confirmation');
    assert.equal(confirmation.text, `Accepted by @asha: payment 644444444444 of intent ${a.intent_id}.`);
    const intent = await p.api('GET', `/api/v1/intents/${a.intent_id}`, { headers: shop.headers });
    assert.equal(intent.body.status, 'settled');
    assert.deepEqual(intent.body.payments.map((x: { status: string }) => x.status), ['credited']);
    await waitFor(async () => webhookTypes().includes('payment.success'), 10_000, 'payment.success at the webhook');
    const audit = await p.app.db.selectFrom('audit_log').select(['actor', 'action']).where('action', '=', 'payment.accept').execute();
    assert.deepEqual(audit, [{ actor: 'telegram:@asha', action: 'payment.accept' }]);

    // Again (the same button, and the payment.held message's Accept): refused, nothing more happens.
    tg.callback(SHOP_CHAT, tokenOf(listed, 'Accept'));
    tg.callback(SHOP_CHAT, tokenOf(pushed, 'Accept'), 'ravi');
    await waitFor(async () => tg.answers.length >= 3, 10_000, 'the repeated presses to be answered');
    assert.deepEqual(tg.answers.slice(1).map((x) => x.text), ['Already done (by telegram:@asha).', 'Already done (by telegram:@asha).']);

    // Refunded on another held payment, from its payment.held message.
    const b = await heldPayment('HELD-2', 130, '655555555555');
    const second = await waitFor(async () => heldMessages().find((s) => s.text.includes('HELD-2')), 10_000, 'the second payment.held message');
    tg.callback(SHOP_CHAT, tokenOf(second, 'Refunded'), 'ravi');
    await waitFor(async () => tg.sent.some((s) => s.text.startsWith('Marked refunded by')), 10_000, 'the refund confirmation');
    assert.equal(tg.answers[3]!.text, 'Marked refunded.');
    const refunded = await p.api('GET', `/api/v1/intents/${b.intent_id}`, { headers: shop.headers });
    assert.equal(refunded.body.status, 'canceled');
    assert.deepEqual(refunded.body.payments.map((x: { status: string }) => x.status), ['refunded']);
    await waitFor(async () => webhookTypes().includes('payment.refunded'), 10_000, 'payment.refunded at the webhook');
    const refundAudit = await p.app.db.selectFrom('audit_log').select(['actor', 'action']).where('action', '=', 'payment.refunded').execute();
    assert.deepEqual(refundAudit, [{ actor: 'telegram:@ravi', action: 'payment.refunded' }]);

    // Settled: nothing further arrives (each thing once).
    await delay(1500);
    assert.deepEqual(webhookTypes().sort(), ['intent.canceled', 'intent.canceled', 'payment.held', 'payment.held', 'payment.refunded', 'payment.success']);
    assert.equal(heldMessages().length, 3);
    assert.equal(tg.sent.filter((s) => s.text.startsWith('Accepted by')).length, 1);
    assert.equal(tg.sent.filter((s) => s.text.startsWith('Paid:')).length, 1, 'the accepted sale is told like any other');
    assert.equal(tg.answers.length, 4);
  });
});

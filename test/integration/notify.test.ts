import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { silentLogger } from '../../src/log/index.ts';
import type { PaymentSource } from '../../src/methods/source.ts';
import { systemRandom } from '../../src/system.ts';
import { runLoop } from '../../src/runtime/loop.ts';
import { BOT_TOKEN, OWNER_CHAT, SHOP_CHAT, startNotifyingPayd, STRANGER_CHAT, upiPayment } from '../helpers/notify.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';
import { stopwatch } from '../helpers/stopwatch.ts';

forEachStore((store) => {
  test('a sale is one Telegram message per chat and one e-mail, amount as the checkout shows it; an unmatched payment is told too', async (t) => {
    const { p, tg, smtp, create } = await startNotifyingPayd(t, { store });
    const intent = await create(1499, 'ORD-77');
    const payMinor = BigInt(Math.round(intent.pay_amount * 100));
    assert.equal((await p.app.ledger.ingest(upiPayment(p, payMinor, '412345678901'))).kind, 'settled');
    const expected = `Paid: ₹1,499.${String(payMinor % 100n).padStart(2, '0')} for order ORD-77. Ref 412345678901.`;
    await waitFor(async () => tg.sent.length >= 2 && smtp.mails.length >= 1, 10_000, 'the sale to be told');
    assert.deepEqual(tg.sent.map((s) => [s.chat_id, s.text]).sort(), [[String(SHOP_CHAT), expected], [String(OWNER_CHAT), expected]]);
    assert.equal(smtp.mails[0]!.subject, `payd: ${expected}`);
    assert.deepEqual(smtp.mails[0]!.to, ['owner@shop.example']);

    // A payment no intent wants.
    assert.equal((await p.app.ledger.ingest(upiPayment(p, 123456n, '499999999999'))).kind, 'unmatched');
    await waitFor(async () => tg.sent.length >= 4 && smtp.mails.length >= 2, 10_000, 'the unmatched payment to be told');
    assert.match(tg.sent[3]!.text, /^Payment matched no order: ₹1,234\.56 .*Ref 499999999999\./);
    // Nothing more: each thing once.
    await delay(2500);
    assert.equal(tg.sent.length, 4);
    assert.equal(smtp.mails.length, 2);
    for (const s of [...tg.sent.map((x) => x.text), ...smtp.mails.map((x) => x.text)]) assert.ok(!s.includes(BOT_TOKEN));
  });

  test('the bot answers only its chats; a forged or replayed button press does nothing', async (t) => {
    const { tg } = await startNotifyingPayd(t, { store, notify: { email: null } });
    tg.message(STRANGER_CHAT, '/status', 'mallory');
    tg.message(STRANGER_CHAT, '/today', 'mallory');
    const mine = tg.message(SHOP_CHAT, '/today');
    await waitFor(async () => tg.sent.some((s) => s.chat_id === String(SHOP_CHAT)), 10_000, 'the reply to /today');
    assert.match(tg.sent.find((s) => s.chat_id === String(SHOP_CHAT))!.text, /No payments yet today/);

    const forged = tg.callback(SHOP_CHAT, 'accept:00000000-0000-4000-8000-000000000000:412345678901');
    const stranger = tg.callback(STRANGER_CHAT, 'anything');
    await waitFor(async () => tg.answers.length >= 2, 10_000, 'the refusals');
    assert.equal(tg.answers.find((a) => a.callback_query_id === (forged.callback_query as { id: string }).id)!.text, 'This button was not issued by payd.');
    assert.equal(tg.answers.find((a) => a.callback_query_id === (stranger.callback_query as { id: string }).id)!.text, 'Not allowed here.');
    // The /today message again with its old update_id: dropped, not answered twice.
    tg.replay(mine);
    tg.message(SHOP_CHAT, '/help');
    await waitFor(async () => tg.sent.filter((s) => s.chat_id === String(SHOP_CHAT)).length >= 2, 10_000, 'the reply to /help');
    await delay(500);
    const toShop = tg.sent.filter((s) => s.chat_id === String(SHOP_CHAT)).map((s) => s.text.split('\n')[0]);
    assert.deepEqual(toShop, ['No payments yet today (UTC).', `payd here. This chat is ${SHOP_CHAT}.`]);
    assert.equal(tg.sent.filter((s) => s.chat_id === String(STRANGER_CHAT)).length, 0);
  });
});

/** A source whose upstream the test turns off and on (it cycles every 100 ms). */
function switchableSource(state: { down: boolean }): PaymentSource {
  return {
    name: 'tron:test',
    method: 'USDT_TRC20',
    async run(signal) {
      await runLoop({
        name: 'switchable',
        intervalMs: 100,
        backoff: { baseMs: 100, maxMs: 200 },
        tick: async () => {
          if (state.down) throw new Error('connect ECONNREFUSED 127.0.0.1:9');
        },
        signal,
        log: silentLogger(),
        random: systemRandom,
      });
    },
    check: async () => ({ ok: true, message: '' }),
  };
}

test('an outage of a source is one alert and one recovery, on each channel', async (t) => {
  const state = { down: false };
  const { tg, smtp } = await startNotifyingPayd(t, { sources: () => [switchableSource(state)], notify: { telegram: { chatIds: [SHOP_CHAT] } } });
  await delay(1000);
  state.down = true;
  await waitFor(async () => tg.sent.length >= 1, 10_000, 'the alert');
  assert.match(tg.sent[0]!.text, /^Problem: payments by USDT_TRC20 are not being read \(stale: .*ECONNREFUSED/);
  // Still down for a while: no second alert.
  await delay(2000);
  assert.equal(tg.sent.length, 1);
  state.down = false;
  await waitFor(async () => tg.sent.length >= 2 && smtp.mails.length >= 2, 10_000, 'the recovery');
  assert.match(tg.sent[1]!.text, /^Recovered: payments by USDT_TRC20 are being read again \(after \d+ s\)\.$/);
  await delay(1500);
  assert.equal(tg.sent.length, 2);
  assert.deepEqual(smtp.mails.map((m) => m.subject.slice(0, 16)), ['payd: Problem: p', 'payd: Recovered:']);
});

test("Telegram's 429 retry_after is waited out, and a Telegram outage slows neither settlement nor the webhook", async (t) => {
  const { startReceiver } = await import('../helpers/receiver.ts');
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const { p, tg, create } = await startNotifyingPayd(t, { notify: { telegram: { chatIds: [SHOP_CHAT] }, email: null } });
  const m = await p.merchant('Hooked', receiver.url);
  tg.setDown(true);
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 250, currency: 'UPI', order_id: 'DOWN-1' }, headers: m.headers });
  const clock = stopwatch();
  assert.equal((await p.app.ledger.ingest(upiPayment(p, BigInt(Math.round(r.body.pay_amount * 100)), '400000000001'))).kind, 'settled');
  await receiver.waitFor(1, 10_000);
  // Telegram's dropped connections cost nothing here: the webhook goes as fast as without them.
  const took = clock.stop();
  assert.ok(took < 2000, `webhook after ${took.toFixed(0)} ms of this process's running time`);
  // Telegram back, but first answering 429 retry_after 2: the message waits that long, then goes.
  await waitFor(async () => tg.calls.includes('sendMessage'), 10_000, 'a first send attempt');
  tg.fail('sendMessage', 429, 2);
  tg.setDown(false);
  // The sender retries the dropped send after 5 s (±20 %), meets the 429, then waits 2 s.
  await waitFor(async () => tg.calls.filter((c) => c === 'sendMessage').length >= 2, 15_000, 'the 429');
  await waitFor(async () => tg.sent.length >= 1, 15_000, 'the message after the 429');
  // Both times are the fake's own, taken when the 429 was answered and when the message arrived.
  const at429 = tg.callTimes[tg.calls.map((c, i) => [c, i] as const).filter(([c]) => c === 'sendMessage')[1]![1]]!;
  assert.ok(tg.sent[0]!.at - at429 >= 2000, `sent ${tg.sent[0]!.at - at429} ms after the 429 that asked for 2 s`);
  assert.equal(tg.calls.filter((c) => c === 'sendMessage').length, 3);
  assert.match(tg.sent[0]!.text, /^Paid: ₹250\.\d\d for order DOWN-1\./);
  void create;
});

test('settled payments as a digest; a webhook endpoint failing 15 min and unreadable bank alerts are told once', async (t) => {
  const { startReceiver } = await import('../helpers/receiver.ts');
  let answer = 500;
  const receiver = await startReceiver(() => answer);
  t.after(() => receiver.close());
  const { p, tg, create } = await startNotifyingPayd(t, { notify: { telegram: { chatIds: [SHOP_CHAT], digestMinutes: 0.05 }, email: null }, config: { webhooks: { retrySchedule: [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2], timeoutSeconds: 1 } } });
  await delay(1200);
  for (const [amount, order, ref] of [[100, 'D-1', '400000000011'], [200, 'D-2', '400000000012']] as const) {
    const i = await create(amount, order);
    await p.app.ledger.ingest(upiPayment(p, BigInt(Math.round(i.pay_amount * 100)), ref));
  }
  const digest = await waitFor(async () => tg.sent.find((s) => s.text.startsWith('2 payments')), 10_000, 'the digest');
  assert.match(digest.text, /^2 payments in the last 3 s: ₹300\.\d\d\.$/);
  assert.ok(!tg.sent.some((s) => s.text.startsWith('Paid:')));

  // A merchant whose endpoint fails: its event is made 16 minutes old.
  const hooked = await p.merchant('Corner shop', receiver.url);
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 300, currency: 'UPI', order_id: 'W-1' }, headers: hooked.headers });
  await p.app.ledger.ingest(upiPayment(p, BigInt(Math.round(r.body.pay_amount * 100)), '400000000013'));
  await receiver.waitFor(1, 5000);
  await p.app.db.updateTable('events').set({ created_at: Date.now() - 16 * 60_000 }).where('intent_id', '=', r.body.intent_id).execute();
  const alert = await waitFor(async () => tg.sent.find((s) => s.text.includes('has not accepted')), 10_000, 'the webhook alert');
  assert.match(alert.text, new RegExp(`^Problem: the shop's server \\(Corner shop, ${hooked.clientId}\\) has not accepted payment messages for 1[67] min\\.`));
  answer = 200;
  await waitFor(async () => tg.sent.some((s) => s.text.startsWith("Recovered: the shop's server (Corner shop")), 10_000, 'the webhook recovery');

  // Three HDFC alerts no template could read.
  const now = Date.now();
  await p.app.db.insertInto('upi_unread_alerts').values([1, 2, 3].map((n) => ({ ref: `imap:1:${n}`, mailbox: 'INBOX', bank: 'hdfc', subject: 'Alert', raw: new Uint8Array([65]), observed_at: now }))).execute();
  const unread = await waitFor(async () => tg.sent.find((s) => s.text.includes('could not be read')), 10_000, 'the unreadable alerts message');
  assert.equal(unread.text, '3 HDFC alerts in the last 24 h could not be read. Run payd doctor.');
  await delay(1500);
  assert.equal(tg.sent.filter((s) => s.text.includes('could not be read') || s.text.includes("shop's server")).length, 3);
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Secret } from '../../src/config/secret.ts';
import { migrate, openDatabase } from '../../src/db/open.ts';
import type { HeldPayments } from '../../src/domain/notify/held-port.ts';
import { silentLogger } from '../../src/log/index.ts';
import { showAmountWith } from '../../src/app/notify.ts';
import { builtinMethods } from '../../src/methods/registry.ts';
import { createTelegramBot } from '../../src/services/notify/bot.ts';
import { createNotificationQueue } from '../../src/services/notify/queue.ts';
import { createTelegramApi } from '../../src/services/notify/telegram-api.ts';
import { systemRandom } from '../../src/system.ts';
import { startFakeTelegram } from '../fakes/telegram.ts';

const TOKEN = '42:component-test';

/** Held payments as the held-payments service answers them; records every call. */
function fakeHeld() {
  const calls: Array<{ verb: string; intentId: string; transactionHash: string; actor: string }> = [];
  const service: HeldPayments = {
    async listPayments() {
      return { items: [{ intentId: 'b9b3c1de-7e0a-4b7e-9a53-3b1f0e9b8a11', merchantId: 'm1', method: 'UPI', transactionHash: '612345678901', amount: 49_900n, receivedAt: 0, status: 'held', reason: 'late' }], nextCursor: null };
    },
    async acceptPayment(a) {
      calls.push({ verb: 'accept', ...a });
      return {};
    },
    async markRefunded(a) {
      calls.push({ verb: 'refunded', ...a });
      return {};
    },
  };
  return { service, calls };
}

test('/held buttons: one press accepts once, as the Telegram user; a reuse, another chat, a forged token and a replay do nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-bot-'));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  await migrate(db);
  const tg = await startFakeTelegram(TOKEN);
  t.after(async () => {
    await tg.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = { now: () => Date.now() };
  const held = fakeHeld();
  const api = createTelegramApi({ apiUrl: tg.url, token: new Secret(TOKEN) });
  const bot = createTelegramBot({ db, api, queue: createNotificationQueue({ db, clock, random: systemRandom }), chatIds: ['1001', '1002'], clock, random: systemRandom, log: silentLogger(), timeZone: 'UTC', show: showAmountWith(builtinMethods), status: async () => 'ok', held: held.service });
  const signal = new AbortController().signal;

  tg.message(1001, '/held');
  await bot.poll(signal);
  assert.equal(tg.sent.length, 1);
  assert.equal(tg.sent[0]!.text, 'Held, not credited: ₹499.00 (late). Ref 612345678901. Accept it or mark it refunded.');
  const [accept, refunded] = tg.sent[0]!.reply_markup!.inline_keyboard[0]!;
  assert.deepEqual([accept!.text, refunded!.text], ['Accept', 'Refunded']);
  assert.ok(accept!.callback_data.length <= 64 && accept!.callback_data !== refunded!.callback_data);

  const press = tg.callback(1001, accept!.callback_data, 'asha');
  await bot.poll(signal);
  assert.deepEqual(held.calls, [{ verb: 'accept', intentId: 'b9b3c1de-7e0a-4b7e-9a53-3b1f0e9b8a11', transactionHash: '612345678901', actor: 'telegram:@asha' }]);
  assert.equal(tg.answers.at(-1)!.text, 'Accepted.');
  assert.match(tg.sent.at(-1)!.text, /^Accepted by @asha: payment 612345678901/);

  // The same button again; the other button of the pair in another allowed chat; a made-up token; the first press replayed.
  tg.callback(1001, accept!.callback_data, 'ravi');
  tg.callback(1002, refunded!.callback_data, 'ravi');
  tg.callback(1001, 'x'.repeat(24), 'ravi');
  tg.replay(press);
  await bot.poll(signal);
  // Three answers: the replayed press is dropped unanswered (its update_id is below the stored offset).
  assert.deepEqual(tg.answers.slice(1).map((a) => a.text), ['Already done (by telegram:@asha).', 'This button was not issued by payd.', 'This button was not issued by payd.']);
  assert.equal(held.calls.length, 1);
  const audit = await db.selectFrom('telegram_actions').select(['used_by']).where('token', '=', accept!.callback_data).executeTakeFirstOrThrow();
  assert.equal(audit.used_by, 'telegram:@asha');

  // The refund button still works in its own chat, once.
  tg.callback(1001, refunded!.callback_data, 'ravi');
  await bot.poll(signal);
  assert.deepEqual(held.calls.map((c) => [c.verb, c.actor]), [['accept', 'telegram:@asha'], ['refunded', 'telegram:@ravi']]);
});

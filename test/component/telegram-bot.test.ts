import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Secret } from '../../src/config/secret.ts';
import { migrate, openDatabase, type Db } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import type { HeldPayments } from '../../src/domain/notify/held-port.ts';
import { silentLogger } from '../../src/log/index.ts';
import { showAmountWith } from '../../src/app/notify.ts';
import { builtinMethods } from '../../src/methods/registry.ts';
import { createTelegramBot } from '../../src/services/notify/bot.ts';
import { createNotificationQueue } from '../../src/services/notify/queue.ts';
import { createTelegramApi } from '../../src/services/notify/telegram-api.ts';
import { systemRandom } from '../../src/system.ts';
import { startFakeTelegram } from '../fakes/telegram.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';

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

/** A migrated store of the kind `store` names, closed after the test: presses are claimed and refusals audited in its rows. */
async function openStore(store: TestStore, t: { after: (fn: () => unknown) => void }): Promise<Db> {
  if (store.kind === 'postgres') {
    const db = openPostgres({ url: await store.database(), pool: 2, statementTimeoutMs: 0 });
    t.after(() => db.destroy());
    await migrate(db);
    return db;
  }
  const dir = mkdtempSync(join(tmpdir(), 'payd-bot-'));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  t.after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await migrate(db);
  return db;
}

forEachStore((store) => {
  const open = (t: { after: (fn: () => unknown) => void }) => openStore(store, t);

  test('/held buttons: one press accepts once, as the Telegram user; a reuse, another chat, a forged token and a replay do nothing', async (t) => {
    const db = await open(t);
    const tg = await startFakeTelegram(TOKEN);
    t.after(() => tg.close());
    const clock = { now: () => Date.now() };
    const held = fakeHeld();
    const api = createTelegramApi({ apiUrl: tg.url, token: new Secret(TOKEN) });
    const bot = createTelegramBot({ db, api, queue: createNotificationQueue({ db, clock, random: systemRandom }), chatIds: ['1001', '1002'], actors: ['1001', '1002'], clock, random: systemRandom, log: silentLogger(), timeZone: 'UTC', show: showAmountWith(builtinMethods), status: async () => 'ok', held: held.service });
    const signal = new AbortController().signal;

    tg.message(1001, '/held');
    await bot.poll(signal);
    assert.equal(tg.sent.length, 1);
    assert.equal(tg.sent[0]!.text, 'Held, not credited: ₹499.00: arrived after the intent expired; accept it or mark it refunded. Ref 612345678901.');
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

  test('only the configured actors press buttons: a channel press, a stranger in a shop chat and any press before actors are set are refused, told and audited', async (t) => {
    const db = await open(t);
    const tg = await startFakeTelegram(TOKEN);
    t.after(() => tg.close());
    const clock = { now: () => Date.now() };
    const held = fakeHeld();
    const api = createTelegramApi({ apiUrl: tg.url, token: new Secret(TOKEN) });
    const botWith = (actors: string[] | undefined) =>
      createTelegramBot({ db, api, queue: createNotificationQueue({ db, clock, random: systemRandom }), chatIds: ['1001', '-1002'], actors, clock, random: systemRandom, log: silentLogger(), timeZone: 'UTC', show: showAmountWith(builtinMethods), status: async () => 'ok', held: held.service });
    const signal = new AbortController().signal;
    const OWNER = 5001;

    // No actors configured: reading still works, the button a reply carries does not.
    const unset = botWith(undefined);
    tg.message(1001, '/held');
    await unset.poll(signal);
    const [accept, refunded] = tg.sent.at(-1)!.reply_markup!.inline_keyboard[0]!;
    tg.callback(1001, accept!.callback_data, 'asha', { from: OWNER });
    await unset.poll(signal);
    assert.equal(tg.answers.at(-1)!.text, 'You may not act here: ask the operator to add your Telegram user id (5001) to notifications.telegram.actors.');
    assert.equal(held.calls.length, 0);

    const bot = botWith([String(OWNER)]);
    // A channel configured as a chat, the press carrying a real button: a channel's presses are never trusted.
    tg.callback(-1002, refunded!.callback_data, 'owner', { from: OWNER, chatType: 'channel' });
    // A member of the shop's group who is not an actor.
    tg.callback(1001, accept!.callback_data, 'mallory', { from: 6666, chatType: 'group' });
    await bot.poll(signal);
    assert.deepEqual(tg.answers.slice(-2).map((a) => a.text), ['Buttons do not work in a channel.', 'You may not act here: ask the operator to add your Telegram user id (6666) to notifications.telegram.actors.']);
    assert.equal(held.calls.length, 0);
    const refusals = await db.selectFrom('audit_log').select(['actor', 'action', 'subject', 'details_json']).where('action', '=', 'telegram.refused').orderBy('id').execute();
    assert.deepEqual(
      refusals.map((r) => [r.actor, r.subject, JSON.parse(r.details_json!).why, JSON.parse(r.details_json!).user_id]),
      [
        ['telegram:@asha', '1001', 'not an actor', 5001],
        ['telegram:@owner', '-1002', 'channel', 5001],
        ['telegram:@mallory', '1001', 'not an actor', 6666],
      ],
    );

    // The actor's own press, from the group: done, once.
    tg.callback(1001, accept!.callback_data, 'owner', { from: OWNER, chatType: 'group' });
    await bot.poll(signal);
    assert.equal(tg.answers.at(-1)!.text, 'Accepted.');
    assert.deepEqual(held.calls.map((c) => [c.verb, c.actor]), [['accept', 'telegram:@owner']]);
  });
});

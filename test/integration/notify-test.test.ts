import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeTelegram } from '../fakes/telegram.ts';
import { payd, runPayd, workdir } from '../helpers/cli.ts';
import { BOT_TOKEN, OWNER_CHAT, SHOP_CHAT } from '../helpers/notify.ts';
import { startSmtp } from '../helpers/smtp.ts';

// The operator's checks of the notification setup before a sale depends on it: `payd notify test`
// sends one message through every channel and target and says what happened to each; `payd doctor`
// asks the same questions without sending (the token, Telegram's getMe and each chat, the SMTP
// login). Against the fake Bot API and a real SMTP server (smtp-server) on loopback.

const SMTP_USER = 'payd@shop.example';
const SMTP_PASSWORD = 'smtp-secret-never-printed';

async function setup(t: import('node:test').TestContext, o: { token?: unknown; password?: string; smtpPort?: number } = {}) {
  const tg = await startFakeTelegram(BOT_TOKEN);
  const smtp = await startSmtp({ user: SMTP_USER, password: SMTP_PASSWORD });
  t.after(async () => {
    await tg.close();
    await smtp.close();
  });
  const dir = workdir(t, {
    database: { file: 'data/payd.sqlite' },
    server: { port: 0 },
    notifications: {
      telegram: { botToken: o.token ?? BOT_TOKEN, chatIds: [SHOP_CHAT, OWNER_CHAT], apiUrl: tg.url },
      email: { host: '127.0.0.1', port: o.smtpPort ?? smtp.port, starttls: false, user: SMTP_USER, password: o.password ?? SMTP_PASSWORD, from: SMTP_USER, to: ['owner@shop.example'] },
    },
  });
  return { tg, smtp, dir };
}

test('payd notify test: one test message to every chat and mailbox, each reported ok', async (t) => {
  const { tg, smtp, dir } = await setup(t);
  const r = await payd(['notify', 'test'], { cwd: dir });
  assert.equal(r.code, 0, r.err + r.out);
  assert.match(r.out, /^ok {4}telegram bot: token accepted: @shop_payd_bot$/m);
  assert.match(r.out, new RegExp(`^ok {4}telegram chat ${SHOP_CHAT}: test message sent$`, 'm'));
  assert.match(r.out, new RegExp(`^ok {4}telegram chat ${OWNER_CHAT}: test message sent$`, 'm'));
  assert.match(r.out, /^ok {4}email owner@shop\.example: test message accepted by 127\.0\.0\.1:\d+$/m);
  assert.deepEqual(tg.sent.map((m) => m.chat_id).sort(), [String(SHOP_CHAT), String(OWNER_CHAT)].sort());
  assert.match(tg.sent[0]!.text, /test message.*Nothing was paid/);
  assert.deepEqual(smtp.mails.map((m) => [m.to, m.subject]), [[['owner@shop.example'], 'payd: test message']]);
  assert.ok(!(r.out + r.err).includes(BOT_TOKEN) && !(r.out + r.err).includes(SMTP_PASSWORD), 'no secret printed');
});

test('payd notify test says in words what is wrong: a chat never written to, a refused SMTP login; exit 1', async (t) => {
  const { tg, smtp, dir } = await setup(t, { password: 'wrong-password' });
  tg.forgetChat(OWNER_CHAT);
  const r = await payd(['notify', 'test'], { cwd: dir });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, new RegExp(`^ok {4}telegram chat ${SHOP_CHAT}: test message sent$`, 'm'), 'the other chat still got it');
  assert.match(r.out, new RegExp(`^FAIL {2}telegram chat ${OWNER_CHAT}: chat ${OWNER_CHAT} not found \\(Bad Request: chat not found\\): the bot can write only where someone has written to it first\\. Open a chat with the bot and send it any message`, 'm'));
  assert.match(r.out, /^FAIL {2}email owner@shop\.example: the SMTP server 127\.0\.0\.1 refused the login of payd@shop\.example \(.*\): check notifications\.email\.user and password$/m);
  assert.equal(smtp.mails.length, 0);
  assert.ok(!r.out.includes('wrong-password'));
});

test('payd notify test: a token Telegram rejects and an SMTP server nobody runs, said as such', async (t) => {
  const { tg, dir } = await setup(t, { token: '999:not-the-bot', smtpPort: 1 });
  const r = await payd(['notify', 'test'], { cwd: dir });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /^FAIL {2}telegram bot: Telegram rejected the bot token \(Unauthorized\): put the token BotFather gave/m);
  assert.doesNotMatch(r.out, /telegram chat/, 'no chat is tried with a rejected token');
  assert.match(r.out, /^FAIL {2}email owner@shop\.example: cannot reach the SMTP server 127\.0\.0\.1:1: nothing accepts connections at 127\.0\.0\.1:1 \(ECONNREFUSED\)\. Check notifications\.email\.host and port$/m);
  assert.equal(tg.sent.length, 0);
});

test('payd doctor checks notifications without sending: getMe, each chat, the SMTP login', async (t) => {
  const { tg, smtp, dir } = await setup(t, { password: 'wrong-password' });
  tg.forgetChat(OWNER_CHAT);
  const r = await payd(['doctor'], { cwd: dir });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /^ok {4}telegram bot: token accepted: @shop_payd_bot$/m);
  assert.match(r.out, new RegExp(`^ok {4}telegram chat ${SHOP_CHAT}: reachable$`, 'm'));
  assert.match(r.out, new RegExp(`^FAIL {2}telegram chat ${OWNER_CHAT}: chat ${OWNER_CHAT} not found`, 'm'));
  assert.match(r.out, /^FAIL {2}email owner@shop\.example: the SMTP server 127\.0\.0\.1 refused the login/m);
  assert.ok(tg.calls.includes('getMe') && tg.calls.includes('getChat'));
  assert.deepEqual([tg.sent.length, smtp.mails.length], [0, 0], 'doctor sends nothing');
});

test('a missing token file: doctor names it, and payd serve exits 2 saying which file', async (t) => {
  const { dir } = await setup(t, { token: { file: 'secrets/telegram-bot-token' } });
  const doctor = await payd(['doctor'], { cwd: dir });
  assert.equal(doctor.code, 1, doctor.out);
  assert.match(doctor.out, /^FAIL {2}telegram token: .*telegram-bot-token.*\(payd serve would refuse to start\)$/m);
  const serve = await runPayd(['serve'], dir);
  assert.equal(serve.status, 2, serve.stderr);
  assert.match(serve.stderr, /notifications\.telegram\.botToken.*telegram-bot-token/);

  // With the file in place, doctor's Telegram lines pass.
  mkdirSync(join(dir, 'secrets'));
  writeFileSync(join(dir, 'secrets', 'telegram-bot-token'), BOT_TOKEN, { mode: 0o600 });
  const fixed = await payd(['doctor'], { cwd: dir });
  assert.match(fixed.out, /^ok {4}telegram bot: token accepted/m);
  assert.doesNotMatch(fixed.out, /telegram token/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../src/methods/load-config.ts';

test('notifications: secret references, chat ids as strings, every kind on by default; errors name their path', () => {
  const c = parseConfig(
    {
      notifications: {
        telegram: { botToken: { env: 'PAYD_BOT_TOKEN' }, chatIds: [1001, '-1002003'] },
        email: { host: 'smtp.example.com', from: 'payd@shop.example', to: ['me@shop.example'], user: 'payd', password: { env: 'PAYD_SMTP_PASSWORD' }, digestMinutes: 60, events: ['payment.settled'] },
        timeZone: 'Asia/Kolkata',
      },
    },
    '/srv/payd',
    { PAYD_BOT_TOKEN: '123:abc', PAYD_SMTP_PASSWORD: 'pw' },
  );
  const n = c.notifications!;
  assert.deepEqual(n.telegram!.chatIds, ['1001', '-1002003']);
  assert.equal(n.telegram!.apiUrl, 'https://api.telegram.org');
  assert.equal(n.telegram!.botToken.reveal(), '123:abc');
  assert.equal(JSON.stringify(n.telegram), JSON.stringify({ ...n.telegram, botToken: '[redacted]' }));
  assert.equal(n.telegram!.events.length, 7);
  // Nobody may press a button until the operator names who may.
  assert.deepEqual(n.telegram!.actors, []);
  assert.equal(n.email!.port, 587);
  assert.equal(n.email!.starttls, true);
  assert.deepEqual(n.email!.events, ['payment.settled']);
  assert.equal(n.email!.digestMinutes, 60);

  assert.throws(
    () => parseConfig({ notifications: { telegram: { botToken: 'x', chatIds: ['@shop'], actors: [5001, '@owner', -1002003], events: ['payment.sold'] }, timeZone: 'Mars/Olympus' } }, '/srv/payd', {}),
    (e: Error) =>
      /notifications\.telegram\.chatIds\.0: expected a numeric chat id/.test(e.message) &&
      /notifications\.telegram\.actors\.1: expected a numeric Telegram user id/.test(e.message) &&
      /notifications\.telegram\.actors\.2: expected a Telegram user id/.test(e.message) && /notifications\.telegram\.events\.0: expected one of/.test(e.message) && /notifications\.timeZone: expected an IANA time zone/.test(e.message),
  );
});

test("the shop has one time zone: either key sets it for the console's times and the bot's /today; two different zones are refused", () => {
  const bot = { telegram: { botToken: 'x', chatIds: ['1'] } };
  assert.equal(parseConfig({ notifications: { ...bot, timeZone: 'Asia/Kolkata' } }, '/srv/payd', {}).shopTimeZone, 'Asia/Kolkata');
  assert.equal(parseConfig({ server: { console: { timeZone: 'Asia/Kolkata' } } }, '/srv/payd', {}).shopTimeZone, 'Asia/Kolkata');
  assert.equal(parseConfig({ server: { console: { timeZone: 'Asia/Kolkata' } }, notifications: { ...bot, timeZone: 'Asia/Kolkata' } }, '/srv/payd', {}).shopTimeZone, 'Asia/Kolkata');
  assert.equal(parseConfig({}, '/srv/payd', {}).shopTimeZone, Intl.DateTimeFormat().resolvedOptions().timeZone, "none set: the machine's zone");
  assert.throws(
    () => parseConfig({ server: { console: { timeZone: 'Asia/Kolkata' } }, notifications: { ...bot, timeZone: 'UTC' } }, '/srv/payd', {}),
    /notifications\.timeZone: is UTC but server\.console\.timeZone is Asia\/Kolkata: the shop has one time zone/,
  );
});

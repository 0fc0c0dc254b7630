import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startFakeTelegram } from '../fakes/telegram.ts';
import { payd, spawnPayd, workdir } from '../helpers/cli.ts';
import { BOT_TOKEN, notificationsConfig, SHOP_CHAT } from '../helpers/notify.ts';
import { baseConfig } from '../helpers/payd.ts';
import { startSmtp } from '../helpers/smtp.ts';
import { checkedFetch } from '../helpers/openapi.ts';
import { waitFor } from '../helpers/wait.ts';

test('kill -9 of the built daemon in the middle: every sale and the source alert reach Telegram and e-mail exactly once', async (t) => {
  const tg = await startFakeTelegram(BOT_TOKEN);
  const smtp = await startSmtp();
  t.after(async () => {
    await tg.close();
    await smtp.close();
  });
  // UPI only, its mailbox on a closed port: the source is down from the start (one alert, never repeated).
  const config = { ...baseConfig(''), database: { file: 'data/payd.sqlite' }, notifications: notificationsConfig(tg, smtp.port, { telegram: { chatIds: [SHOP_CHAT] } }) };
  config.methods = { UPI: config.methods.UPI } as typeof config.methods;
  const dir = workdir(t, config);
  const m = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' };
  const sell = async (url: string, order: string) => {
    const res = await checkedFetch()(`${url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 100, currency: 'UPI', order_id: order }) });
    return ((await res.json()) as { intent_id: string }).intent_id;
  };
  // Settled by the CLI (another process), as an operator's manual settlement: the daemon feeds from the event.
  const settle = async (id: string, ref: string) => assert.equal((await payd(['intents', 'settle', id, '--tx', ref], { cwd: dir })).code, 0);
  const told = (order: string) => ({ tg: tg.sent.filter((s) => s.text.includes(`order ${order}.`)).length, mail: smtp.mails.filter((s) => s.text.includes(`order ${order}.`)).length });

  const first = await spawnPayd(['serve', '--port', '0'], { cwd: dir });
  t.after(() => first.child.kill('SIGKILL'));
  const a = await sell(first.url, 'K-A');
  const b = await sell(first.url, 'K-B');
  const c = await sell(first.url, 'K-C');
  await settle(a, '510000000001');
  await waitFor(async () => told('K-A').tg === 1 && told('K-A').mail === 1, 20_000, 'sale A to be told');
  await waitFor(async () => tg.sent.some((s) => s.text.startsWith('Problem: payments by UPI')), 20_000, 'the UPI source alert');

  // Telegram goes away; sale B is queued and its send fails; then the daemon is killed.
  tg.setDown(true);
  await settle(b, '510000000002');
  await waitFor(async () => told('K-B').mail === 1, 20_000, 'sale B by e-mail');
  await delay(500);
  first.child.kill('SIGKILL');
  await first.exited;
  // Sale C while no daemon runs.
  await settle(c, '510000000003');
  tg.setDown(false);

  const second = await spawnPayd(['serve', '--port', '0'], { cwd: dir });
  t.after(() => second.child.kill('SIGKILL'));
  // The new daemon takes the worker lease once the killed one's expires (12 s), then catches up.
  await waitFor(async () => told('K-B').tg === 1 && told('K-C').tg === 1 && told('K-C').mail === 1, 45_000, 'sales B and C after the restart');
  await delay(2500);
  assert.deepEqual([told('K-A'), told('K-B'), told('K-C')], [{ tg: 1, mail: 1 }, { tg: 1, mail: 1 }, { tg: 1, mail: 1 }]);
  assert.equal(tg.sent.filter((s) => s.text.startsWith('Problem: payments by UPI')).length, 1);
  assert.equal(smtp.mails.filter((s) => s.subject.startsWith('payd: Problem: payments by UPI')).length, 1);
  assert.ok(!second.stderr().includes(BOT_TOKEN) && !first.stderr().includes(BOT_TOKEN), 'the bot token is never logged');
});

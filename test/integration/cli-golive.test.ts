import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { PAYD_BIN, payd, runPayd as run, workdir } from '../helpers/cli.ts';
import { startPayd } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';

test('demo on a busy port exits 1 suggesting --port and leaves no database or merchant behind', async (t) => {
  const dir = workdir(t);
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  t.after(() => blocker.close());
  const port = (blocker.address() as AddressInfo).port;
  const [r, serve] = await Promise.all([run(['demo', '--port', String(port)], dir), run(['serve', '--port', String(port)], dir)]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*--port ${port + 1}`));
  assert.equal(serve.status, 1);
  assert.match(serve.stderr, /already in use/);
  assert.equal(existsSync(join(dir, 'data')), false);
});

test('demo --webhook-url: the banner shows the URL and says admin commands take --sandbox, which then find the merchant', async (t) => {
  const dir = workdir(t);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const child = spawn(process.execPath, [PAYD_BIN, 'demo', '--port', '0', '--webhook-url', receiver.url], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const deadline = Date.now() + 30_000;
  while (!out.includes('take --sandbox') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.match(out, new RegExp(`webhook URL: +${receiver.url.replace(/[/.]/g, '\\$&')}`));
  assert.match(out, /admin commands for it take --sandbox/);
  const clientId = /X-Client-ID: +(\S+)/.exec(out)![1];
  // Without --sandbox the live side has nothing and says where the merchant is.
  const live = await payd(['webhooks', 'test', clientId], { cwd: dir });
  assert.equal(live.code, 1);
  assert.match(live.err, /no live database at .*data\/payd\.sqlite[\s\S]*sandbox database .*payd-sandbox\.sqlite exists: add --sandbox/);
  const sent = await payd(['--sandbox', 'webhooks', 'test', clientId], { cwd: dir });
  assert.equal(sent.code, 0, sent.err);
  assert.equal(JSON.parse((await receiver.waitFor(1)).at(0)!.body).type, 'webhook.test');

  // The demo's console is on, at the address the banner prints (a host name a passkey can belong to).
  const consoleUrl = /The operator console: (http:\/\/localhost:\d+)\/console /.exec(out)?.[1];
  assert.ok(consoleUrl, out);
  const signIn = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
    const req = httpGet({ host: '127.0.0.1', port: new URL(consoleUrl).port, path: '/console/sign-in', headers: { host: new URL(consoleUrl).host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
  });
  assert.equal(signIn.status, 200);
  assert.match(signIn.body, /Sign in/);
  child.kill('SIGTERM');
});

test('read and change commands never create a database; a not-found id hints at the other database', async (t) => {
  const dir = workdir(t);
  for (const args of [['intents', 'list'], ['merchant', 'list'], ['payments', 'list'], ['webhooks', 'list'], ['--sandbox', 'intents', 'show', '5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10']]) {
    const r = await payd(args, { cwd: dir });
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.err, /no (live|sandbox) database at .*data\/payd(-sandbox)?\.sqlite \(config: embedded defaults/);
  }
  assert.deepEqual(readdirSync(dir), [], 'nothing created');
  const sandboxMerchant = (await payd(['--sandbox', 'merchant', 'create', '--name', 'Dev', '--json'], { cwd: dir })).json();
  const liveMerchant = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const wrongSide = await payd(['merchant', 'revoke', sandboxMerchant.client_id, '--yes'], { cwd: dir });
  assert.equal(wrongSide.code, 1);
  assert.match(wrongSide.err, new RegExp(`no merchant with client id ${sandboxMerchant.client_id}\\n  merchant ${sandboxMerchant.client_id} exists in the sandbox database \\(.*payd-sandbox\\.sqlite\\): add --sandbox`));
  const otherWay = await payd(['--sandbox', 'merchant', 'rotate-secret', liveMerchant.client_id], { cwd: dir });
  assert.match(otherWay.err, /exists in the live database .*: drop --sandbox/);
  const unknown = await payd(['merchant', 'revoke', '5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10', '--yes'], { cwd: dir });
  assert.equal(unknown.code, 1);
  assert.doesNotMatch(unknown.err, /exists in/);
});

test('a lost live database: the hint says it is missing and to restore it, not to add --sandbox', async (t) => {
  const dir = workdir(t);
  assert.equal((await payd(['--sandbox', 'merchant', 'create', '--name', 'Dev'], { cwd: dir })).code, 0);
  assert.equal((await payd(['merchant', 'create', '--name', 'Shop'], { cwd: dir })).code, 0);
  const live = join(dir, 'data', 'payd.sqlite');
  for (const f of [live, `${live}-wal`, `${live}-shm`]) rmSync(f, { force: true });
  const r = await payd(['intents', 'list'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.err, /no live database at .*data\/payd\.sqlite/);
  assert.match(r.err, /the database is missing: .*payd\.sqlite\.key is still there, so it was created at this path and has since been moved or deleted/);
  assert.match(r.err, /Restore it from your backup/);
  assert.doesNotMatch(r.err, /exists: add --sandbox/);
  assert.equal(existsSync(live), false, 'nothing created in its place');
  // payd serve (systemd restarting it, say) refuses too, instead of taking payments on an empty database.
  const serve = await run(['serve', '--port', '0'], dir);
  assert.equal(serve.status, 1, serve.stdout + serve.stderr);
  assert.match(serve.stderr, /no database at .*data\/payd\.sqlite: the database is missing: .*payd\.sqlite\.key is still there/);
  assert.match(serve.stderr, /payd serve does not begin an empty one in its place\. Restore the database from your backup/);
  assert.equal(existsSync(live), false, 'nothing created in its place');
});

test('doctor on a live config with no method enabled says so and exits 1; the sandbox passes', async (t) => {
  const dir = workdir(t, { database: { file: 'data/payd.sqlite' } });
  const [r, s] = await Promise.all([run(['doctor'], dir), run(['--sandbox', 'doctor'], dir)]);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /FAIL +methods: none enabled: a live daemon cannot take a payment/);
  assert.equal(s.status, 0, s.stdout + s.stderr);
  assert.match(s.stdout, /ok +mode: sandbox/);
});

test('webhook attempt numbers keep counting after a replay, and the replay gets a fresh retry schedule', async (t) => {
  const receiver = await startReceiver((_r, n) => (n <= 2 ? 500 : 200));
  t.after(() => receiver.close());
  const p = await startPayd({ config: { webhooks: { retrySchedule: [3600], allowInsecureUrls: false } } });
  t.after(() => p.close());
  const m = await p.merchant('Shop', receiver.url);
  const intent = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: 'w-1' }, headers: m.headers })).body;
  const row = (await p.app.intents.find(intent.intent_id))!;
  const now = p.clock.now();
  await p.app.ledger.ingestWith({ method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef: '412345678901', occurredAt: now, observedAt: now, source: 'manual', evidence: {} }, undefined, { intentId: row.id });
  const [ev] = await p.app.events.forIntent(intent.intent_id);
  await p.app.dispatcher.deliverNow(ev.event_id); // attempt 1: 500, retry in an hour
  let shown = await p.app.events.show(ev.event_id);
  assert.equal(shown.status, 'pending');
  assert.equal(shown.attempts, 1);
  await p.app.events.replay({ eventId: ev.event_id });
  await p.app.dispatcher.deliverNow(ev.event_id); // attempt 2: 500 again; the schedule starts over (an hour, not "gave up")
  shown = await p.app.events.show(ev.event_id);
  assert.equal(shown.status, 'pending', String(shown.last_error));
  await p.app.events.replay({ eventId: ev.event_id });
  await p.app.dispatcher.deliverNow(ev.event_id); // attempt 3: delivered
  shown = await p.app.events.show(ev.event_id);
  assert.equal(shown.status, 'delivered');
  assert.equal(shown.attempts, 3);
  assert.deepEqual(shown.attempts_log.map((a) => [a.attempt, a.status_code]), [[1, 500], [2, 500], [3, 200]]);
});

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { baseConfig } from '../helpers/payd.ts';
import { payd, spawnPayd } from '../helpers/cli.ts';
import { checkedFetch } from '../helpers/openapi.ts';
import { startReceiver } from '../helpers/receiver.ts';

function workdir(t: import('node:test').TestContext, config: object) {
  const dir = mkdtempSync(join(tmpdir(), 'payd-daemon-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  return dir;
}

/** A JSON API call against a spawned daemon. */
async function call(url: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await checkedFetch()(url + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

test('SIGTERM: stops accepting, finishes the in-flight request, exits 0 within 10 s', async (t) => {
  const dir = workdir(t, { ...baseConfig(''), database: { file: 'data/payd.sqlite' }, methods: {} });
  const m = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const d = await spawnPayd(['serve', '--port', '0'], { cwd: dir });
  t.after(() => d.child.kill('SIGKILL'));
  const { port } = new URL(d.url);
  // A request whose body is still arriving when SIGTERM lands.
  const body = JSON.stringify({ amount: 10, currency: 'UPI', order_id: 'x' });
  const inFlight = new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/intents/create-payment', headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-client-id': m.client_id, 'x-client-secret': m.client_secret } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => req.end(body.slice(10)), 700);
  });
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  d.child.kill('SIGTERM');
  // No method is enabled, so the finished request is a clean 400, not a dropped connection.
  assert.equal(await inFlight, 400);
  assert.equal(await d.exited, 0);
  assert.ok(Date.now() - t0 < 10_000);
  assert.match(d.stderr(), /"msg":"stopped"/);
});

test('receiver down → settled → kill -9 → receiver up → restart: the webhook is delivered, nothing settles twice', async (t) => {
  const receiver = await startReceiver();
  const hookPort = receiver.port;
  await receiver.close(); // down for now; same port later
  const dir = workdir(t, { ...baseConfig(''), database: { file: 'data/payd.sqlite' }, webhooks: { retrySchedule: [0.3, 0.3, 0.3, 0.3, 0.3, 0.3], timeoutSeconds: 1, allowLoopback: true } });
  const m = (await payd(['merchant', 'create', '--name', 'Shop', '--webhook-url', `http://127.0.0.1:${hookPort}/hook`, '--json'], { cwd: dir })).json();
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret };

  const first = await spawnPayd(['serve', '--port', '0'], { cwd: dir });
  t.after(() => first.child.kill('SIGKILL'));
  const intent = (await call(first.url, 'POST', '/api/v1/intents/create-payment', headers, { amount: 77, currency: 'UPI', order_id: 'k9' })).body;
  // Settled by another process (the CLI); the daemon notices the outbox row and fails to deliver.
  assert.equal((await payd(['intents', 'settle', intent.intent_id, '--tx', '123412341234'], { cwd: dir })).code, 0);
  const deadline = Date.now() + 5000;
  while (!/webhook attempt failed/.test(first.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.match(first.stderr(), /webhook attempt failed/);
  first.child.kill('SIGKILL');
  await first.exited;

  const up = await startReceiver();
  t.after(() => up.close());
  // startReceiver picks a free port; re-point the merchant at it (the URL, not the event, changes).
  assert.equal((await payd(['merchant', 'set-webhook', m.client_id, '--url', up.url], { cwd: dir })).code, 0);
  const second = await spawnPayd(['serve', '--port', '0'], { cwd: dir });
  t.after(() => second.child.kill('SIGKILL'));
  const [hook] = await up.waitFor(1, 8000);
  const payload = new Webhook(m.webhook_secret).verify(hook.body, {
    'webhook-id': String(hook.headers['webhook-id']),
    'webhook-timestamp': String(hook.headers['webhook-timestamp']),
    'webhook-signature': String(hook.headers['webhook-signature']),
  }) as any;
  assert.equal(payload.data.intent_id, intent.intent_id);
  assert.equal(payload.data.transaction_hash, '123412341234');
  const fetched = await call(second.url, 'GET', `/api/v1/intents/${intent.intent_id}`, headers);
  assert.equal(fetched.body.status, 'settled');
  second.child.kill('SIGTERM');
  await second.exited;
  const events = (await payd(['webhooks', 'list', '--json'], { cwd: dir })).json();
  assert.equal(events.length, 1);
  assert.equal(events[0].status, 'delivered');
});

test('sandbox: serve --sandbox, pay from the CLI, the merchant gets a livemode:false webhook; live data untouched', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = workdir(t, { database: { file: 'data/payd.sqlite' }, server: { port: 0 } });
  const m = (await payd(['merchant', 'create', '--sandbox', '--name', 'Dev', '--webhook-url', receiver.url, '--json'], { cwd: dir })).json();
  const d = await spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir });
  t.after(() => d.child.kill('SIGKILL'));
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret };
  for (const [currency, amount] of [['UPI', 499], ['USDT_TRC20', 12.5], ['SOL', 0.25], ['USDT_SOL', 3]] as const) {
    const intent = (await call(d.url, 'POST', '/api/v1/intents/create-payment', headers, { amount, currency, order_id: `sb-${currency}` })).body;
    assert.equal(intent.livemode, false);
    const paid = await payd(['sandbox', 'pay', intent.intent_id, '--json'], { cwd: dir });
    assert.equal(paid.code, 0, paid.err);
    assert.equal(paid.json().intent.status, 'settled');
    assert.equal(paid.json().payment.status, 'matched');
  }
  const hooks = await receiver.waitFor(4, 5000);
  const types = hooks.map((h) => JSON.parse(h.body)).map((b) => [b.type, b.data.livemode, b.data.currency]);
  assert.deepEqual(types.map((x) => x.slice(0, 2)), Array(4).fill(['payment.success', false]));
  // An under-payment in the sandbox is held for its intent (the merchant decides), like a real one.
  const short = (await call(d.url, 'POST', '/api/v1/intents/create-payment', headers, { amount: 100, currency: 'UPI', order_id: 'short' })).body;
  const under = await payd(['sandbox', 'pay', short.intent_id, '--amount', '99.99', '--json'], { cwd: dir });
  assert.equal(under.code, 1, 'nothing settled');
  assert.equal(under.json().intent.status, 'pending');
  assert.equal(under.json().payment.status, 'held');
  assert.equal(under.json().payment.reason, 'underpaid');
  assert.match(under.err, /nothing settled: payment \S+ of UPI 99\.99 held for intent \S+ \(reason: underpaid; the merchant was sent payment\.held/);
  // A merchant without a webhook URL was sent nothing, and the CLI does not claim otherwise.
  const quiet = (await payd(['merchant', 'create', '--sandbox', '--name', 'No hook', '--json'], { cwd: dir })).json();
  const quietHeaders = { 'x-client-id': quiet.client_id, 'x-client-secret': quiet.client_secret };
  const quietShort = (await call(d.url, 'POST', '/api/v1/intents/create-payment', quietHeaders, { amount: 300, currency: 'UPI', order_id: 'short' })).body;
  const unheard = await payd(['sandbox', 'pay', quietShort.intent_id, '--amount', '299.99'], { cwd: dir });
  assert.equal(unheard.code, 1);
  assert.match(unheard.err, /reason: underpaid; the merchant has no webhook URL, so no payment\.held was sent \(it is in GET \/api\/v1\/events\)/);
  assert.doesNotMatch(unheard.err, /was sent payment\.held/);
  // Far from what it asked: unmatched, and the CLI says how to settle it on the intent anyway.
  const far = (await call(d.url, 'POST', '/api/v1/intents/create-payment', quietHeaders, { amount: 400, currency: 'UPI', order_id: 'far' })).body;
  const stray = await payd(['sandbox', 'pay', far.intent_id, '--amount', '1.23'], { cwd: dir });
  assert.equal(stray.code, 1);
  const strayRef = /payment (\S+) of UPI 1\.23 kept as unmatched/.exec(stray.err)?.[1];
  assert.ok(strayRef, stray.err);
  assert.match(stray.err, new RegExp(`to settle it on this intent: payd --sandbox intents settle ${far.intent_id} --tx ${strayRef};`));
  // The sandbox merchant does not exist in live mode, and looking does not create a live database.
  const live = await payd(['merchant', 'list', '--json'], { cwd: dir });
  assert.equal(live.code, 1);
  assert.match(live.err, /no live database at .*payd\.sqlite[\s\S]*the sandbox database .*payd-sandbox\.sqlite exists: add --sandbox/);
  assert.equal(existsSync(join(dir, 'data', 'payd.sqlite')), false);
  assert.equal((await payd(['sandbox', 'pay', '5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10'], { cwd: dir })).code, 1);
});

test('upstreams that cannot be reached (closed ports, a bad host) never take the API down', async (t) => {
  const config = baseConfig('');
  config.methods.UPI.imap.host = 'imap.payd-test.invalid';
  const dir = workdir(t, { ...config, database: { file: 'data/payd.sqlite' } });
  const m = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const d = await spawnPayd(['serve', '--port', '0'], { cwd: dir });
  t.after(() => d.child.kill('SIGKILL'));
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret };
  await new Promise((r) => setTimeout(r, 1500)); // let every source fail at least once
  for (const [currency, amount] of [['UPI', 10], ['USDT_TRC20', 10], ['SOL', 1], ['USDT_SOL', 10]] as const) {
    const r = await call(d.url, 'POST', '/api/v1/intents/create-payment', headers, { amount, currency, order_id: `up-${currency}` });
    assert.equal(r.status, 200, `${currency}: ${JSON.stringify(r.body)}`);
  }
  const log = d.stderr();
  for (const source of ['upi-imap', 'tron', 'solana:SOL', 'solana:USDT_SOL']) assert.match(log, new RegExp(`"source":"${source}`), `${source} started`);
  assert.match(log, /backing off|retrying|failed/i);
  d.child.kill('SIGTERM');
  assert.equal(await d.exited, 0);
});

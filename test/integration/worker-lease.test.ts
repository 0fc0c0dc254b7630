// Two real `payd serve` processes on one SQLite file: exactly one holds the worker lease
// (sources, webhook delivery, expiry); the other serves the API and takes over after kill -9.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { payd, spawnPayd } from '../helpers/cli.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

const readyz = async (url: string) => {
  const res = await fetch(url + '/readyz');
  return { status: res.status, body: (await res.json()) as any };
};

test('two serve processes: one leader, one standby; each settlement delivered once; kill -9 of the leader → the standby leads and delivers', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = mkdtempSync(join(tmpdir(), 'payd-lease-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify({ database: { file: 'data/payd.sqlite' }, server: { port: 0 }, webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 2, allowLoopback: true } }));
  // The sandbox: its simulated source reads payments other processes write, like a real upstream.
  const m = (await payd(['merchant', 'create', '--sandbox', '--name', 'Shop', '--webhook-url', receiver.url, '--json'], { cwd: dir })).json();
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' };

  // Started together: whichever takes the lease first leads.
  const both = await Promise.all([spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir }), spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir })]);
  for (const d of both) t.after(() => d.child.kill('SIGKILL'));
  const roles = await Promise.all(both.map(async (d) => (await readyz(d.url)).body.workers));
  assert.deepEqual([...roles].sort(), ['leader', 'standby']);
  const [a, b] = roles[0] === 'leader' ? both : [both[1]!, both[0]!];
  // Ready once the leader's source completed its first cycle.
  await waitFor(async () => (await readyz(a!.url)).status === 200, 5000, 'the leader to be ready');
  const standby = await readyz(b!.url);
  assert.equal(standby.status, 200);
  assert.deepEqual(standby.body.sources, { sandbox: { state: 'standby' } });
  const leaderGauge = async (url: string) => /^payd_worker_leader (\d)$/m.exec(await (await fetch(url + '/metrics')).text())?.[1];
  assert.deepEqual([await leaderGauge(a!.url), await leaderGauge(b!.url)], ['1', '0']);
  // Only the leader runs the source; the standby never polls.
  await waitFor(async () => /payment source starting/.test(a!.stderr()), 5_000, 'the leader\'s source to start'); // log lines reach a pipe up to 25 ms late
  assert.doesNotMatch(b.stderr(), /payment source starting/);

  const pay = async (api: string, order: string) => {
    const res = await fetch(api + '/api/v1/intents/create-payment', { method: 'POST', headers, body: JSON.stringify({ amount: 10, currency: 'UPI', order_id: order }) });
    assert.equal(res.status, 200);
    const intent = (await res.json()) as any;
    const paid = await payd(['sandbox', 'pay', intent.intent_id, '--json'], { cwd: dir });
    assert.equal(paid.code, 0, paid.err);
    return intent.intent_id as string;
  };

  // Created on the standby, paid: the leader delivers it, once.
  const first = await pay(b.url, 'o-1');
  const [hook] = await receiver.waitFor(1, 8000);
  assert.equal(JSON.parse(hook.body).data.intent_id, first);
  await new Promise((r) => setTimeout(r, 1500)); // a second sender would have shown up by now
  assert.equal(receiver.received.length, 1);

  a.child.kill('SIGKILL');
  await a.exited;
  const t0 = Date.now();
  await waitFor(async () => (await readyz(b.url)).body.workers === 'leader', 20_000, 'the standby to take the lease');
  const tookMs = Date.now() - t0;
  assert.ok(tookMs < 20_000, `takeover took ${tookMs} ms`);
  // Log lines reach a pipe in batches (up to 25 ms late): wait for it rather than read at once.
  await waitFor(async () => /worker lease acquired/.test(b.stderr()), 5_000, 'the takeover log line');

  const second = await pay(b.url, 'o-2');
  const hooks = await receiver.waitFor(2, 8000);
  assert.equal(JSON.parse(hooks[1]!.body).data.intent_id, second);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(receiver.received.length, 2);
  assert.deepEqual(new Set(hooks.map((h) => h.headers['webhook-id'])).size, 2);

  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0);
});

test('a second serve that cannot bind its port exits 1 before starting any worker; the running leader stays leader', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = mkdtempSync(join(tmpdir(), 'payd-lease-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify({ database: { file: 'data/payd.sqlite' }, server: { port: 0 } }));
  const a = await spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir });
  t.after(() => a.child.kill('SIGKILL'));
  const port = new URL(a.url).port;
  const second = await spawnPayd(['serve', '--sandbox', '--port', port], { cwd: dir }).then(
    () => assert.fail('the second serve should not start'),
    (err: Error) => err.message,
  );
  assert.match(second, /exited with 1 before listening/);
  assert.doesNotMatch(second, /payment source starting|worker lease acquired/);
  assert.equal((await readyz(a.url)).body.workers, 'leader');
});

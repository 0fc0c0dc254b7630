import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PaymentSource } from '../../src/methods/source.ts';
import { payd, spawnPayd } from '../helpers/cli.ts';
import { startPayd } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';

test('SIGTERM during a webhook POST that hangs: exit 0 within the 10 s deadline, the cut-off attempt is recorded and the next start delivers it', async (t) => {
  const hang = await startReceiver(() => 'hang');
  t.after(() => hang.close());
  const dir = mkdtempSync(join(tmpdir(), 'payd-shutdown-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A 30 s attempt timeout: longer than the shutdown deadline, so shutdown must cut it off.
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify({ database: { file: 'data/payd.sqlite' }, server: { port: 0 }, webhooks: { retrySchedule: [1, 1], timeoutSeconds: 30, allowLoopback: true } }));
  const m = (await payd(['merchant', 'create', '--sandbox', '--name', 'Shop', '--webhook-url', hang.url, '--json'], { cwd: dir })).json();
  const first = await spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir });
  t.after(() => first.child.kill('SIGKILL'));
  const res = await fetch(first.url + '/api/v1/intents/create-payment', {
    method: 'POST',
    headers: { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 10, currency: 'UPI', order_id: 'cut' }),
  });
  const intent = (await res.json()) as any;
  assert.equal((await payd(['sandbox', 'pay', intent.intent_id], { cwd: dir })).code, 0);
  const [sent] = await hang.waitFor(1, 15_000); // the POST is now in flight, unanswered

  const t0 = Date.now();
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);
  const took = Date.now() - t0;
  assert.ok(took < 12_000, `shutdown took ${took} ms`);
  assert.match(first.stderr(), /cutting off webhook deliveries still in flight/);

  const [ev] = (await payd(['webhooks', 'list', '--sandbox', '--json'], { cwd: dir })).json();
  assert.equal(ev.status, 'pending');
  const shown = (await payd(['webhooks', 'show', ev.event_id, '--sandbox', '--json'], { cwd: dir })).json();
  assert.equal(shown.attempts_log.length, 1);
  assert.match(shown.attempts_log[0].error, /cut off by shutdown/);

  const ok = await startReceiver();
  t.after(() => ok.close());
  assert.equal((await payd(['merchant', 'set-webhook', m.client_id, '--sandbox', '--url', ok.url], { cwd: dir })).code, 0);
  const second = await spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir });
  t.after(() => second.child.kill('SIGKILL'));
  const [hook] = await ok.waitFor(1, 15_000);
  assert.equal(hook.headers['webhook-id'], sent!.headers['webhook-id']);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});

test('close() keeps one deadline: a worker that ignores the stop signal makes it resolve false on time', async (t) => {
  const stuck: PaymentSource = { name: 'stuck', run: () => new Promise(() => {}), check: async () => ({ ok: true, message: '' }) };
  const p = await startPayd({ workers: true, sources: () => [stuck] });
  t.after(() => p.close());
  const t0 = Date.now();
  assert.equal(await p.app.close({ deadlineMs: 1000 }), false);
  const took = Date.now() - t0;
  assert.ok(took >= 900 && took < 3000, `close took ${took} ms`);
});

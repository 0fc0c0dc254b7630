import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startDovecot } from '../helpers/dovecot.ts';
import { startPayd } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';
import type { PaymentSource } from '../../src/methods/source.ts';
import { runLoop } from '../../src/runtime/loop.ts';
import { systemRandom } from '../../src/system.ts';
import { silentLogger } from '../../src/log/index.ts';

const readyz = async (url: string) => {
  const res = await fetch(url + '/readyz');
  return { status: res.status, body: (await res.json()) as any };
};

test('/readyz: UPI ok while Dovecot answers; 503 naming UPI with the IMAP error once its port is closed; /healthz stays 200', async (t) => {
  const dovecot = await startDovecot();
  t.after(() => dovecot.dispose());
  const dir = mkdtempSync(join(tmpdir(), 'payd-readyz-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = await startPayd({
    dir,
    workers: true,
    sources: 'configured',
    rawConfig: {
      server: { host: '127.0.0.1', port: 0 },
      database: { file: join(dir, 'payd.sqlite') },
      methods: {
        UPI: {
          vpa: 'shop@hdfcbank',
          payeeName: 'Example Shop',
          // A re-sync every second: "3 intervals" without a completed sync is then a few seconds.
          imap: { host: dovecot.host, port: dovecot.port, secure: false, user: dovecot.user, password: dovecot.password, resyncSeconds: 1 },
          accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
          alertRecipients: ['merchant.payd@example.com'],
        },
      },
    },
  });
  t.after(() => p.close());

  const up = await waitFor(async () => {
    const r = await readyz(p.url);
    return r.body.sources?.UPI?.state === 'ok' && r;
  }, 10_000, 'UPI ok');
  assert.equal(up.status, 200);
  assert.equal(up.body.status, 'ok');
  assert.equal(up.body.workers, 'leader');
  assert.match(up.body.sources.UPI.last_ok_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  await dovecot.stop();
  const down = await waitFor(async () => {
    const r = await readyz(p.url);
    return r.status === 503 && r;
  }, 40_000, '/readyz to turn 503');
  assert.equal(down.body.status, 'unavailable');
  assert.deepEqual(down.body.failing, ['UPI']);
  assert.equal(down.body.sources.UPI.state, 'stale');
  assert.match(down.body.sources.UPI.last_error, /127\.0\.0\.1|refused|ECONNREFUSED|connect/i);
  assert.equal((await fetch(p.url + '/healthz')).status, 200);

  // Back up: the next completed sync makes it ready again.
  await dovecot.restart();
  await waitFor(async () => (await readyz(p.url)).status === 200, 90_000, '/readyz to recover');
});

test('a source that throws is reported crashed (503, with its error) and restarted with backoff until it runs', async (t) => {
  let runs = 0;
  const flaky: PaymentSource = {
    name: 'flaky',
    method: 'SOL',
    async run(signal) {
      runs += 1;
      if (runs <= 2) throw new Error(`bug #${runs}`);
      await runLoop({ name: 'flaky', intervalMs: 100, tick: async () => {}, signal, log: silentLogger(), random: systemRandom });
    },
    check: async () => ({ ok: true, message: '' }),
  };
  const p = await startPayd({ workers: true, sources: () => [flaky] });
  t.after(() => p.close());
  const crashed = await waitFor(async () => {
    const r = await readyz(p.url);
    return r.status === 503 && r;
  }, 5000, 'a 503');
  assert.equal(crashed.body.sources.SOL.state, 'crashed');
  assert.match(crashed.body.sources.SOL.last_error, /bug #/);
  assert.deepEqual(crashed.body.failing, ['SOL']);
  // Restarted (1 s, then 2 s of backoff, ±20 %), then healthy.
  const ok = await waitFor(async () => {
    const r = await readyz(p.url);
    return r.body.sources.SOL.state === 'ok' && r;
  }, 15_000, 'the source to run again');
  assert.equal(ok.status, 200);
  assert.equal(runs, 3);
  assert.equal(ok.body.sources.SOL.last_error, undefined);
});

const sourceUp = async (url: string, method: string) => {
  const text = await (await fetch(url + '/metrics')).text();
  return new RegExp(`^payd_source_up\\{method="${method}"\\} (\\d)$`, 'm').exec(text)?.[1];
};

test('/readyz: a source that has not completed a cycle yet is not ready (503 "starting", payd_source_up 0) until its first cycle completes', async (t) => {
  let release!: () => void;
  const firstCycle = new Promise<void>((resolve) => (release = resolve));
  const slow: PaymentSource = {
    name: 'slow',
    method: 'SOL',
    async run(signal) {
      // The first cycle waits for the test: until then the source has never seen its upstream.
      await runLoop({ name: 'slow', intervalMs: 100, tick: () => firstCycle, signal, log: silentLogger(), random: systemRandom });
    },
    check: async () => ({ ok: true, message: '' }),
  };
  const p = await startPayd({ workers: true, sources: () => [slow] });
  t.after(() => p.close());
  t.after(() => release());
  const first = await readyz(p.url);
  assert.equal(first.status, 503);
  assert.equal(first.body.status, 'unavailable');
  assert.deepEqual(first.body.failing, ['SOL']);
  assert.equal(first.body.sources.SOL.state, 'starting');
  assert.equal(await sourceUp(p.url, 'SOL'), '0');
  release();
  const ok = await waitFor(async () => {
    const r = await readyz(p.url);
    return r.status === 200 && r;
  }, 5000, 'ready after the first cycle');
  assert.equal(ok.body.sources.SOL.state, 'ok');
  assert.equal(await sourceUp(p.url, 'SOL'), '1');
});

test('/readyz: a mailbox that refuses connections from the start is down at once (503 naming UPI, payd_source_up 0), long before it could be stale', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-readyz-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = await startPayd({
    dir,
    workers: true,
    sources: 'configured',
    rawConfig: {
      server: { host: '127.0.0.1', port: 0 },
      database: { file: join(dir, 'payd.sqlite') },
      methods: {
        UPI: {
          vpa: 'shop@hdfcbank',
          payeeName: 'Example Shop',
          // Port 1 on loopback: connection refused. Re-syncs every 10 min: "stale" is half an hour away.
          imap: { host: '127.0.0.1', port: 1, secure: false, user: 'alerts@example.com', password: 'x', resyncSeconds: 600 },
          accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
        },
      },
    },
  });
  t.after(() => p.close());
  const down = await waitFor(async () => {
    const r = await readyz(p.url);
    return r.body.sources?.UPI?.last_error && r;
  }, 10_000, 'the first failed connection');
  assert.equal(down.status, 503);
  assert.deepEqual(down.body.failing, ['UPI']);
  assert.equal(down.body.sources.UPI.state, 'down');
  assert.equal(down.body.sources.UPI.last_ok_at, undefined);
  assert.match(down.body.sources.UPI.last_error, /127\.0\.0\.1|refused|ECONNREFUSED|connect/i);
  assert.equal(await sourceUp(p.url, 'UPI'), '0');
  // And it stays so while it retries: never "ready" without one completed cycle.
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await readyz(p.url)).status, 503);
  }
});

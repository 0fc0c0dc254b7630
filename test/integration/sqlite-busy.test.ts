// Another process holding SQLite's write lock (the CLI, a backup, a second daemon) must not
// freeze this one: reads and /healthz go on, writes wait asynchronously and then answer 503.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startPayd } from '../helpers/payd.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A separate process that takes the write lock, says so, holds it for `ms`, then commits. */
function holdWriteLock(file: string, ms: number) {
  const script = `
    const db = require('better-sqlite3')(${JSON.stringify(file)});
    db.exec('begin immediate');
    db.prepare("insert into audit_log (at, actor, action) values (?, 'test', 'lock')").run(Date.now());
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('commit'); db.close(); }, ${ms});
  `;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, locked, exited };
}

test('a writer holding the lock for 4 s: fetches and /healthz are not delayed, creates answer 200 or 503, never 500', async (t) => {
  const p = await startPayd();
  t.after(() => p.close());
  const m = await p.merchant();
  const created = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 100, currency: 'UPI', order_id: 'before' }, headers: m.headers });
  assert.equal(created.status, 200);
  const id = created.body.intent_id;

  const timed = async (fn: () => Promise<{ status: number }>) => {
    const started = performance.now();
    const { status } = await fn();
    return { status, ms: performance.now() - started };
  };
  const fetchIntent = () => timed(() => p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers }));
  const health = () => timed(() => p.api('GET', '/healthz'));
  // What this (shared, busy) machine takes without a lock held, for comparison.
  const baseline: number[] = [];
  for (let i = 0; i < 10; i++) baseline.push((await fetchIntent()).ms, (await health()).ms);
  const usual = Math.max(...baseline);

  const holder = holdWriteLock(p.app.dbFile, 4000);
  t.after(() => holder.child.kill('SIGKILL'));
  await holder.locked;
  const lockedAt = performance.now();

  // Creates go out while the lock is held; they must not stall the event loop meanwhile.
  const creates = Array.from({ length: 5 }, (_, i) =>
    p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 101 + i, currency: 'UPI', order_id: `during-${i}` }, headers: m.headers }),
  );
  const during: Array<{ status: number; ms: number }> = [];
  while (performance.now() - lockedAt < 3000) {
    during.push(await fetchIntent(), await health());
    await new Promise((r) => setTimeout(r, 50));
  }
  const results = await Promise.all(creates);
  await holder.exited;

  assert.ok(during.length >= 10, `only ${during.length} requests made it through in 3 s`);
  assert.deepEqual([...new Set(during.map((r) => r.status))], [200]);
  const worst = Math.max(...during.map((r) => r.ms));
  assert.ok(worst <= usual + 200, `a read took ${worst.toFixed(0)} ms during the lock (usually ≤ ${usual.toFixed(0)} ms)`);

  for (const r of results) {
    assert.ok(r.status === 200 || r.status === 503, `create answered ${r.status}: ${r.text}`);
    if (r.status === 503) {
      assert.equal(r.body.code, 'BUSY');
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
    }
  }
  assert.ok(results.some((r) => r.status === 503), 'a lock held longer than the wait limit turns creates away');
  // Once the lock is gone, writes go through again.
  const after = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 200, currency: 'UPI', order_id: 'after' }, headers: m.headers });
  assert.equal(after.status, 200, after.text);
});

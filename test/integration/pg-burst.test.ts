// A merchant's burst of identical orders on two real `payd serve` nodes over one
// PostgreSQL, while busy processes load the CPU. Every create must succeed at once (no 503: no
// client retry here) with its own pay_amount, as long as the window has free amounts.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { payd, spawnPayd, workdir } from '../helpers/cli.ts';
import { createPostgresIntentStore } from '../../src/db/intent-store-pg.ts';
import { startPayd } from '../helpers/payd.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

const BURSTS = 3;
const PER_NODE = 50;
/** ₹1000: a window of 1 % = 1000 steps of ₹0.01, so the 300 creates all find a free amount. */
const PRICE = 1000;
/** Busy loops beside the 2 cores' usual load (other test runs share this machine). */
const BURNERS = 3;

function burnCpu(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

test(`a burst of ${2 * PER_NODE} identical-amount creates over two nodes with the CPU loaded, ${BURSTS} times: every one answers 200 with its own pay_amount`, async (t) => {
  const dir = workdir(t, {
    server: { port: 0, masterKey: 'pg-burst test master key', publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 }, publicRateLimit: { perSecond: 0, burst: 1 } },
    database: { url: { env: 'PAYD_TEST_DATABASE_URL' } },
    methods: {
      // The mailbox is unreachable (port 1): the source retries with backoff; creates do not need it.
      UPI: { vpa: 'shop@hdfcbank', payeeName: 'Example Shop', minAmount: 1, maxAmount: 100000, imap: { host: '127.0.0.1', port: 1, secure: false, user: 'alerts', password: 'x' }, alertRecipients: ['alerts@example.com'], accounts: [{ bank: 'hdfc', accountEnding: '4321' }] },
    },
  });
  const env = { PAYD_TEST_DATABASE_URL: await freshDatabase(pg.url) };
  const m = await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir, env });
  assert.equal(m.code, 0, m.err);
  const { client_id, client_secret } = m.json();
  const headers = { 'x-client-id': client_id, 'x-client-secret': client_secret, 'content-type': 'application/json' };
  const nodes = await Promise.all([spawnPayd(['serve'], { cwd: dir, env }), spawnPayd(['serve'], { cwd: dir, env })]);
  for (const n of nodes) t.after(() => n.child.kill('SIGKILL'));

  const burners = burnCpu(BURNERS);
  t.after(() => {
    for (const b of burners) b.kill('SIGKILL');
  });
  await new Promise((r) => setTimeout(r, 500)); // let the busy loops take their share first

  const seen = new Set<string>();
  for (let burst = 1; burst <= BURSTS; burst++) {
    const t0 = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 2 * PER_NODE }, async (_, i) => {
        const s0 = Date.now();
        const res = await fetch(nodes[i % 2]!.url + '/api/v1/intents/create-payment', {
          method: 'POST',
          headers,
          body: JSON.stringify({ amount: PRICE, currency: 'UPI', order_id: `burst-${burst}-${i}` }),
        });
        return { status: res.status, body: (await res.json()) as any, ms: Date.now() - s0 };
      }),
    );
    const ms = answers.map((a) => a.ms).sort((x, y) => x - y);
    t.diagnostic(`burst ${burst}: ${Date.now() - t0} ms for ${answers.length} creates; latency p50 ${ms[ms.length >> 1]} ms, max ${ms[ms.length - 1]} ms; load average ${(await loadAverage()).join(' ')}`);
    const failed = answers.filter((a) => a.status !== 200);
    assert.deepEqual(failed.map((a) => `${a.status} ${a.body.code}: ${a.body.detail}`), [], `burst ${burst}: ${failed.length} of ${answers.length} creates failed`);
    const pays = answers.map((a) => String(a.body.pay_amount));
    assert.equal(new Set(pays).size, answers.length, `burst ${burst}: distinct pay_amounts`);
    for (const p of pays) {
      assert.ok(!seen.has(p), `pay_amount ${p} handed out twice`);
      seen.add(p);
    }
    for (const a of answers) {
      assert.ok(a.body.pay_amount >= PRICE && a.body.pay_amount <= PRICE * 1.01, `pay_amount ${a.body.pay_amount} inside the window`);
    }
  }
  assert.equal(seen.size, BURSTS * 2 * PER_NODE);
});

test('a create waiting longer than the connect timeout (5 s) for a busy pool still answers 200: the pool queues, it does not refuse', async (t) => {
  // One connection, held 7 s by another query (a slow report, a long settlement): the create queues behind it.
  const p = await startPayd({ config: { database: { url: await freshDatabase(pg.url), pool: 1, statementTimeoutMs: 0 }, server: { masterKey: 'pg-burst test master key' } } });
  t.after(() => p.close());
  const m = await p.merchant();
  const held = sql`SELECT pg_sleep(7)`.execute(p.app.db);
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: 'queued' }, headers: m.headers });
  const waited = Date.now() - t0;
  await held;
  assert.equal(r.status, 200, r.text);
  assert.ok(waited > 5000, `answered after ${waited} ms: it did wait for the pool`);
  t.diagnostic(`create queued behind a 7 s query: answered after ${waited} ms`);
});

test('a create passes over an amount another transaction is reserving (not committed yet) instead of waiting for it; rolled back, that amount is free again', async (t) => {
  const p = await startPayd({ config: { database: { url: await freshDatabase(pg.url) }, server: { masterKey: 'pg-burst test master key' } } });
  t.after(() => p.close());
  const m = await p.merchant();
  const create = (order: string) => p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: order }, headers: m.headers });
  // Another create, elsewhere, has reserved ₹10.01 (the first pay amount: never the whole ₹10.00) and not committed yet.
  let reserved!: () => void;
  let release!: () => void;
  const isReserved = new Promise<void>((r) => (reserved = r));
  const released = new Promise<void>((r) => (release = r));
  const other = createPostgresIntentStore(p.app.db).write(async (w) => {
    const now = Date.now();
    assert.equal(await w.reserveFirst({ method: 'UPI', receiver: 'shop@hdfcbank', from: 1000, to: 1001, step: 1, skipMultiplesOf: 100, intentId: 'elsewhere', reservedUntil: now + 3_600_000, now }), 1001);
    reserved();
    await released;
    throw new Error('rolled back');
  });
  t.after(() => release());
  await isReserved;
  const t0 = Date.now();
  const next = await create('while-reserved');
  const ms = Date.now() - t0;
  assert.equal(next.status, 200, next.text);
  assert.equal(next.body.pay_amount, 10.02);
  // Waiting for the other transaction would have lasted until the lock timeout (3 s), then 503.
  assert.ok(ms < 2900, `answered after ${ms} ms`);
  release();
  await assert.rejects(other, /rolled back/);
  const after = await create('after-rollback');
  assert.equal(after.body.pay_amount, 10.01);
});

async function loadAverage(): Promise<string[]> {
  const { loadavg } = await import('node:os');
  return loadavg().map((x) => x.toFixed(1));
}

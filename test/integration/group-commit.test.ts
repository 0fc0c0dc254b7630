// Creates go through a durable group commit (src/db/group-commit.ts): writes arriving
// together share one transaction, each isolated by its own savepoint, each answered only
// after the COMMIT. Real SQLite files; a second connection observes the commits.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { createGroupCommit } from '../../src/db/group-commit.ts';
import { kyselyOver, openSqlite, writeTx } from '../../src/db/open.ts';
import { baseConfig, startPayd } from '../helpers/payd.ts';
import { payd, spawnPayd } from '../helpers/cli.ts';

function tempDb(t: import('node:test').TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'payd-gc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'x.sqlite');
  const sqlite = openSqlite(file);
  sqlite.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
  const db = kyselyOver(sqlite);
  t.after(() => db.destroy());
  const observer = new SQLite(file);
  t.after(() => observer.close());
  // data_version moves once per transaction committed by another connection.
  const version = () => observer.pragma('data_version', { simple: true }) as number;
  const has = (k: string) => observer.prepare('SELECT 1 FROM t WHERE k = ?').get(k) !== undefined;
  return { sqlite, db, version, has };
}

test('jobs arriving together commit in one transaction; a failing job is rolled back alone; each answer comes after the commit', async (t) => {
  const { sqlite, db, version, has } = tempDb(t);
  assert.equal(sqlite.pragma('synchronous', { simple: true }), 2, 'synchronous=FULL: every commit is fsynced');
  const group = createGroupCommit(db, sqlite);
  const insert = sqlite.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
  const before = version();
  const seenCommitted: boolean[] = [];
  const jobs = Array.from({ length: 20 }, (_, i) =>
    group
      .run(() => {
        insert.run(`k${i}`, i);
        if (i === 7) {
          insert.run('k7-extra', 0);
          throw new Error('job 7 fails after writing');
        }
        return i;
      })
      .then((v) => {
        seenCommitted.push(has(`k${i}`)); // answered only once another connection can see it
        return v;
      }),
  );
  const results = await Promise.allSettled(jobs);
  assert.equal(version() - before, 1, 'one transaction (one fsync) for the 20 jobs');
  results.forEach((r, i) => {
    if (i === 7) assert.equal(r.status === 'rejected' && (r.reason as Error).message, 'job 7 fails after writing');
    else assert.deepEqual(r, { status: 'fulfilled', value: i });
  });
  assert.equal(has('k7'), false, "the failing job's writes are rolled back");
  assert.equal(has('k7-extra'), false);
  assert.equal(has('k6') && has('k8'), true, 'its neighbours committed');
  assert.deepEqual(seenCommitted, Array(19).fill(true));

  // A constraint error is one job's error too.
  const dup = await Promise.allSettled([group.run(() => insert.run('k1', 1)), group.run(() => insert.run('fresh', 1))]);
  assert.equal(dup[0].status, 'rejected');
  assert.equal(dup[1].status, 'fulfilled');
  assert.equal(has('fresh'), true);

  // Groups without a failure run without savepoints; a failure in such a group is still its job's
  // alone (the group runs again, isolated): whichever mode the previous groups left it in.
  for (const round of [1, 2, 3]) {
    const clean = await Promise.allSettled([1, 2, 3].map((i) => group.run(() => insert.run(`r${round}-ok-${i}`, i))));
    assert.deepEqual(clean.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled']);
    const v0 = version();
    const mixed = await Promise.allSettled([
      group.run(() => insert.run(`r${round}-a`, 1)),
      group.run(() => {
        insert.run(`r${round}-b`, 1);
        return insert.run(`r${round}-a`, 2); // a duplicate key after a write of its own
      }),
      group.run(() => insert.run(`r${round}-c`, 1)),
    ]);
    assert.deepEqual(mixed.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal(version() - v0, 1, 'still one commit for the group');
    assert.deepEqual([`r${round}-a`, `r${round}-b`, `r${round}-c`].map(has), [true, false, true]);
  }
  assert.equal(sqlite.prepare('SELECT count(*) FROM t WHERE k LIKE ?').pluck().get('r%-ok-%'), 9);
});

test('a group waits for a Kysely transaction on the same connection instead of joining it', async (t) => {
  const { sqlite, db, has } = tempDb(t);
  const group = createGroupCommit(db, sqlite);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const tx = writeTx(db, async (trx) => {
    await trx.insertInto('t' as never).values({ k: 'tx', v: 1 } as never).execute();
    await held;
    throw new Error('the Kysely transaction rolls back');
  });
  const job = group.run(() => sqlite.prepare('INSERT INTO t (k, v) VALUES (?, ?)').run('job', 1));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(has('job'), false, 'not committed while the other transaction holds the connection');
  release();
  await assert.rejects(tx, /rolls back/);
  await job;
  assert.equal(has('job'), true);
  assert.equal(has('tx'), false, 'the rollback did not take the group job with it, nor the reverse');
});

test('concurrent creates over HTTP: each answered on its own (idempotent repeats, 409 conflicts, successes side by side)', async (t) => {
  const p = await startPayd();
  t.after(() => p.close());
  const m = await p.merchant();
  const post = (order_id: string, amount: number) => p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount, currency: 'UPI', order_id } });
  const replies = await Promise.all([
    ...Array.from({ length: 30 }, (_, i) => post(`o-${i}`, 100 + i)),
    post('same', 50),
    post('same', 50),
    post('same', 51),
    post('bad', 0.001),
  ]);
  for (let i = 0; i < 30; i++) assert.equal(replies[i].status, 200, JSON.stringify(replies[i].body));
  const same = replies.slice(30, 33);
  const ok = same.filter((r) => r.status === 200);
  assert.equal(ok.length, 2, 'the two identical requests both succeed…');
  assert.equal(ok[0].body.intent_id, ok[1].body.intent_id, '…with the same intent');
  assert.equal(same.find((r) => r.status !== 200)!.body.code, 'ORDER_ID_CONFLICT');
  assert.equal(replies[33].status, 400);
  const ids = new Set(replies.slice(0, 30).map((r) => r.body.intent_id));
  assert.equal(ids.size, 30);
  const payAmounts = new Set(replies.slice(0, 30).map((r) => String(r.body.pay_amount)));
  assert.equal(payAmounts.size, 30, 'every intent got its own pay_amount');
  for (const r of replies.slice(0, 3)) assert.equal((await p.api('GET', `/api/v1/intents/${r.body.intent_id}`, { headers: m.headers })).status, 200);
});

test('kill -9 right after the answers: every acknowledged create is in the database after a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-gc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify({ ...baseConfig(''), database: { file: 'data/payd.sqlite' }, methods: { UPI: baseConfig('').methods.UPI } }));
  const m = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const d = await spawnPayd(['serve', '--port', '0', '--no-workers'], { cwd: dir });
  t.after(() => d.child.kill('SIGKILL'));
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' };
  const replies = await Promise.all(
    Array.from({ length: 100 }, (_, i) => fetch(`${d.url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 10 + i, currency: 'UPI', order_id: `k-${i}` }) }).then((r) => r.json() as Promise<any>)),
  );
  d.child.kill('SIGKILL');
  await d.exited;
  const list = await payd(['intents', 'list', '--limit', '500', '--json'], { cwd: dir });
  const stored = new Set(list.json().map((i: any) => i.intent_id));
  for (const r of replies) assert.ok(stored.has(r.intent_id), `acknowledged ${r.intent_id} survived`);
  assert.equal(stored.size, 100);
});

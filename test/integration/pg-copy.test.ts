// `payd db copy` (moving a running shop off SQLite): a SQLite shop with rows in every table is copied
// by bin/payd (a real process) into an empty PostgreSQL database; a `payd serve` process on
// PostgreSQL then serves the same intents to the same merchant credentials, signs webhooks
// with the same secrets, and continues the shop.
import { amountToDb } from '../../src/db/amounts.ts';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { COPIED_TABLES, COPY_PLAN } from '../../src/db/copy.ts';
import { openDatabase } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { PAYD_BIN, payd, spawnPayd, workdir } from '../helpers/cli.ts';
import { baseConfig, startPayd } from '../helpers/payd.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';
import { startReceiver } from '../helpers/receiver.ts';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

/** bin/payd as a child process with extra environment (the target URL), run to its end. */
function runWithEnv(args: string[], cwd: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [PAYD_BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('close', (status) => (clearTimeout(timer), resolve({ status, stdout, stderr }))));
}

const count = async (db: ReturnType<typeof openDatabase>, table: string) => Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!.n);

/**
 * A SQLite shop with at least one row in every table `db copy` moves, made through the app
 * itself where payd writes the rows (merchants, intents, settlement, webhooks, cancel,
 * rejections, checkpoints) and directly for the rest (mailbox tables, sandbox transfers).
 */
async function sqliteShop(t: TestContext) {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = workdir(t);
  const config = baseConfig(dir);
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  const p = await startPayd({ dir, rawConfig: config, workers: true });
  const m = await p.merchant('Copied shop', receiver.url);
  const created = [];
  for (const [i, amount] of [10, 10, 20, 30].entries()) {
    const r = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount, currency: 'UPI', order_id: `copy-${i}` } });
    assert.equal(r.status, 200);
    created.push(r.body);
  }
  const link = await p.api('POST', '/api/v1/payment-links', { headers: m.headers, body: { title: 'Copied link', amount: 499 } });
  assert.equal(link.status, 200, JSON.stringify(link.body));
  const now = Date.now();
  const settled = await p.app.ledger.ingest(
    { method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(created[0].pay_amount * 100)), txRef: '412345678901', occurredAt: now, observedAt: now, source: 'imap', evidence: { bank: 'hdfc' } },
    { key: 'imap:alerts:INBOX', value: { uidValidity: '7', lastUid: 42 } },
  );
  assert.equal(settled.kind, 'settled');
  await p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: 99_900n, txRef: '412345678902', occurredAt: now, observedAt: now, source: 'imap' });
  await p.app.ledger.reject({ source: 'imap', method: 'UPI', ref: 'imap:7:43', reason: 'dkim_failed', detail: { domain: 'hdfcbank.net' }, raw: new Uint8Array([1, 2, 3, 255]), observedAt: now });
  await p.app.cancels.cancel(created[3].intent_id, { actor: 'api' });
  await receiver.waitFor(2, 10_000); // payment.success and intent.canceled delivered: attempts recorded
  const db = p.app.db;
  await db.insertInto('upi_parked_mail').values({ ref: 'imap:7:44', mailbox: 'INBOX', uid_validity: '7', uid: 44, raw: Buffer.from('parked mail'), received_at: now, bank: 'hdfc', reason: 'dns_unresolved', parked_at: now, attempts: 1, next_attempt_at: now + 60_000 }).execute();
  await db.insertInto('upi_unread_alerts').values({ ref: 'imap:7:45', mailbox: 'INBOX', bank: 'axis', subject: 'A new template', raw: Buffer.from('unread alert'), observed_at: now }).execute();
  await db.insertInto('upi_inspecting').values({ mailbox: 'INBOX', ref: 'imap:7:46', uid: 46, started_at: now, holder: 'run-1' }).execute();
  await db.insertInto('mailbox_oauth_tokens').values({ key: 'imap:alerts', refresh_token_sealed: 'v1.sealed.refresh.token', configured_hash: 'abc', updated_at: now }).execute();
  // An operator console device and its session move with the shop (still signed in after the move).
  await db.insertInto('console_invites').values({ token_hash: 'a'.repeat(64), name: "Asha's phone", created_at: now, expires_at: now + 900_000, used_at: now }).execute();
  await db.insertInto('console_passkeys').values({ id: 'cred-1', name: "Asha's phone", public_key: 'pQECAyYgASFYIA', counter: 0, transports: '["internal"]', created_at: now, last_used_at: now, revoked_at: null }).execute();
  await db.insertInto('console_sessions').values({ id: 'cs_0011223344556677', token_hash: 'b'.repeat(64), passkey_id: 'cred-1', csrf: 'c'.repeat(43), address: '127.0.0.1', created_at: now, last_seen_at: now, revoked_at: null }).execute();
  // A message still to send and a bot button still to press move too (no second message, no dead button).
  await db.insertInto('notifications').values({ id: 'n-1', channel: 'telegram', target: '42', dedup_key: 'sale:1', kind: 'payment.settled', text: 'Paid', buttons_json: null, status: 'pending', attempts: 0, next_attempt_at: now, locked_until: 0, last_error: null, created_at: now, sent_at: null }).execute();
  await db.insertInto('telegram_actions').values({ token: 't'.repeat(22), chat_id: '42', action: 'accept', intent_id: created[0].intent_id, transaction_hash: 'tx-1', created_at: now, expires_at: now + 86_400_000, used_at: null, used_by: null }).execute();
  await db.insertInto('sandbox_transfers').values({ method: 'UPI', receiver: 'shop@hdfcbank', amount_minor: amountToDb(500n), tx_ref: 'sbx-1', reference: null, created_at: now }).execute();
  const fetched = await p.api('GET', `/api/v1/intents/${created[0].intent_id}`, { headers: m.headers });
  await p.close();
  return { dir, config, merchant: m, created, fetched: fetched.body, receiver, dbFile: join(dir, 'payd.sqlite') };
}

test('db copy: every table of a SQLite shop into empty PostgreSQL, counts verified; a node on PostgreSQL serves the same intents to the same credentials and signs with the same webhook secret', async (t) => {
  const s = await sqliteShop(t);
  const source = openDatabase(s.dbFile);
  const expected: Record<string, number> = {};
  for (const table of COPIED_TABLES) expected[table] = await count(source, table);
  await source.destroy();
  // The fixture really covers every copied table: a table added later without rows here fails this.
  assert.deepEqual(COPIED_TABLES.filter((table) => expected[table]! === 0), []);
  assert.equal(COPY_PLAN.worker_lease.copy, false);

  const url = await freshDatabase(pg.url);
  // bin/payd as an operator runs it, the URL from the environment.
  const copied = await runWithEnv(['db', 'copy', '--to-env', 'TARGET_URL', '--json'], s.dir, { TARGET_URL: url });
  assert.equal(copied.status, 0, copied.stderr);
  const report = JSON.parse(copied.stdout);
  assert.deepEqual(Object.fromEntries(report.tables.map((r: { table: string; rows: number }) => [r.table, r.rows])), expected);
  // The rate cache (026) is refilled by the new leader within one refresh, a sign-in in progress (024) started again: never copied.
  assert.deepEqual(report.skipped.map((r: { table: string }) => r.table), ['console_challenges', 'rates', 'worker_lease']);
  assert.match(report.masterKeyFingerprint, /^[0-9a-f]{32}$/);

  // The target, read independently: the same counts.
  const target = openPostgres({ url, pool: 1, statementTimeoutMs: 0 });
  t.after(() => target.destroy());
  for (const table of COPIED_TABLES) assert.equal(await count(target, table), expected[table], table);
  const raw = await target.selectFrom('rejections').select('raw').executeTakeFirstOrThrow();
  assert.deepEqual([...(raw.raw as Uint8Array)], [1, 2, 3, 255]);

  // The node on PostgreSQL, with the same master key (the SQLite shop's key file, now configured).
  const keyFile = `${s.dbFile}.key`;
  const pgConfig = { ...s.config, database: { url }, server: { ...s.config.server, masterKey: readFileSync(keyFile, 'utf8').trim() } };
  writeFileSync(join(s.dir, 'payd.config.json'), JSON.stringify(pgConfig));
  const node = await spawnPayd(['serve'], { cwd: s.dir });
  t.after(() => node.child.kill('SIGKILL'));
  const api = async (method: string, path: string, body?: object) => {
    const res = await fetch(node.url + path, { method, headers: { ...s.merchant.headers, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const again = await api('GET', `/api/v1/intents/${s.created[0].intent_id}`);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, s.fetched);
  // Idempotent create still finds the copied intent; a new create gets a pay_amount the copied reservations do not hold.
  const dup = await api('POST', '/api/v1/intents/create-payment', { amount: 10, currency: 'UPI', order_id: 'copy-0' });
  assert.equal(dup.body.intent_id, s.created[0].intent_id);
  const fresh = await api('POST', '/api/v1/intents/create-payment', { amount: 10, currency: 'UPI', order_id: 'after-copy' });
  assert.equal(fresh.status, 200);
  assert.ok(![s.created[0].pay_amount, s.created[1].pay_amount].includes(fresh.body.pay_amount), `pay_amount ${fresh.body.pay_amount} reused`);
  // Rows with copied ids continue their sequences: a new audit entry (cancel) and attempt (webhook test) insert fine.
  const canceled = await api('POST', `/api/v1/intents/${s.created[2].intent_id}/cancel`, {});
  assert.equal(canceled.status, 200);
  const sent = await payd(['webhooks', 'test', s.merchant.clientId], { cwd: s.dir });
  assert.equal(sent.code, 0, sent.err);
  // The node leads (it runs the dispatcher) and sends intent.canceled; the CLI sends webhook.test.
  const hooks = await s.receiver.waitFor(4, 10_000);
  // Both signed with the webhook secret sealed in SQLite, unsealed on PostgreSQL under the same key.
  const wh = new Webhook(s.merchant.webhookSecret);
  const types = hooks.slice(2).map((h) => (wh.verify(h.body, { 'webhook-id': String(h.headers['webhook-id']), 'webhook-timestamp': String(h.headers['webhook-timestamp']), 'webhook-signature': String(h.headers['webhook-signature']) }) as { type: string }).type);
  assert.deepEqual(types.sort(), ['intent.canceled', 'webhook.test']);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(s.receiver.received.length, 4);
  assert.equal(await count(target, 'webhook_attempts'), expected.webhook_attempts! + 2);
  assert.equal(await count(target, 'audit_log'), expected.audit_log! + 1);
});

test('db copy refuses, changing nothing: a target that holds data, an unknown table, a running daemon; no target is a usage error; the password is never printed', async (t) => {
  const dir = workdir(t);
  const config = baseConfig(dir);
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  const p = await startPayd({ dir, rawConfig: config });
  await p.merchant('Shop');
  await p.close();
  const dbFile = join(dir, 'payd.sqlite');

  const none = await payd(['db', 'copy'], { cwd: dir });
  assert.equal(none.code, 2);
  assert.match(none.err, /no target: pass --to <postgres-url>, --to-env <NAME>, or set PAYD_DB_COPY_TO/);

  const unset = await payd(['db', 'copy', '--to-env', 'NOT_SET_ANYWHERE'], { cwd: dir });
  assert.equal(unset.code, 2);
  assert.match(unset.err, /--to-env NOT_SET_ANYWHERE: that environment variable is not set/);
  const sandbox = await payd(['db', 'copy', '--sandbox', '--to', 'postgres://127.0.0.1:1/x'], { cwd: dir });
  assert.equal(sandbox.code, 2);
  assert.match(sandbox.err, /the sandbox stays on SQLite/);
  const notPg = await payd(['db', 'copy', '--to', 'mysql://u:pw@127.0.0.1/x'], { cwd: dir });
  assert.equal(notPg.code, 2);
  assert.match(notPg.err, /must be a postgres:\/\/ \(or postgresql:\/\/\) URL/);
  assert.doesNotMatch(notPg.err, /pw/);

  // Not reachable: the message names the server, never the password.
  const secret = 's3cr3t-Pa55';
  const down = await payd(['db', 'copy', '--to', `postgres://payd:${secret}@127.0.0.1:1/payd`], { cwd: dir });
  assert.equal(down.code, 1);
  assert.match(down.err, /cannot reach the target database postgres:\/\/payd:\*\*\*@127\.0\.0\.1:1\/payd/);
  assert.doesNotMatch(down.out + down.err, new RegExp(secret));

  // From $PAYD_DB_COPY_TO; then a second copy into the same database is refused.
  const url = await freshDatabase(pg.url);
  // 4,000 intents × 18 columns in one batch would be 72,000 parameters, past PostgreSQL's 65,535
  // per statement: the copy splits batches by table width, so a huge --batch still copies.
  const wide = openDatabase(dbFile);
  await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 4000)
    insert into intents (id, merchant_id, order_id, method, amount_minor, pay_amount_minor, receiver, reference, payment_uri, status, return_url, created_at, expires_at, transaction_hash, verified_at, payment_id, updated_at)
    select 'seed-' || i, (select id from merchants), 'seed-' || i, 'UPI', printf('%040d', 100), printf('%040d', 100 + i), 'shop@hdfcbank', null, 'upi://pay', 'expired', null, i, i + 1, null, null, null, i from n`.execute(wide);
  await wide.destroy();
  const first = await payd(['db', 'copy', '--batch', '100000'], { cwd: dir, env: { PAYD_DB_COPY_TO: url } });
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /counts verified/);
  const second = await payd(['db', 'copy'], { cwd: dir, env: { PAYD_DB_COPY_TO: url } });
  assert.equal(second.code, 1);
  assert.match(second.err, /target database is not empty \(.*merchants: 1.*\).*nothing was copied/);

  // A table payd does not know: stop before writing anything.
  const other = await freshDatabase(pg.url);
  const source = openDatabase(dbFile);
  await sql`create table shop_notes (id integer primary key, body text)`.execute(source);
  const unknown = await payd(['db', 'copy', '--to-env', 'T'], { cwd: dir, env: { T: other } });
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /tables payd does not know \(shop_notes\)/);
  const target = openPostgres({ url: other, pool: 1, statementTimeoutMs: 0 });
  t.after(() => target.destroy());
  const tables = async () => Number((await sql<{ n: string }>`select count(*) as n from information_schema.tables where table_schema = 'public'`.execute(target)).rows[0]!.n);
  assert.equal(await tables(), 0);
  await sql`drop table shop_notes`.execute(source);

  // A daemon still holds the worker lease: stop it first.
  await source.insertInto('worker_lease').values({ name: 'workers', holder: 'h', host: 'elsewhere', pid: 1, acquired_at: Date.now(), expires_at: Date.now() + 60_000 }).execute();
  await source.destroy();
  const running = await payd(['db', 'copy', '--to-env', 'T'], { cwd: dir, env: { T: other } });
  assert.equal(running.code, 1);
  assert.match(running.err, /still holds this SQLite database's worker lease \(host elsewhere, pid 1\): stop every payd serve first/);
  assert.equal(await tables(), 0);
});

test('trial copy while the shop runs: the live file is refused (its daemon holds it), a VACUUM INTO snapshot of it copies, and the daemon keeps serving', async (t) => {
  const dir = workdir(t);
  const config = baseConfig(dir);
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  const created = await payd(['merchant', 'create', '--name', 'Running shop', '--json'], { cwd: dir });
  assert.equal(created.code, 0, created.err);
  const daemon = await spawnPayd(['serve'], { cwd: dir });
  t.after(() => daemon.child.kill('SIGKILL'));
  const live = join(dir, 'payd.sqlite');
  // The daemon leads: its lease row names its pid.
  const deadline = Date.now() + 30_000;
  let lease: { pid: number; expires_at: number } | undefined;
  const reader = openDatabase(live);
  while (!lease && Date.now() < deadline) {
    lease = await reader.selectFrom('worker_lease').select(['pid', 'expires_at']).executeTakeFirst();
    if (!lease) await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(lease?.pid, daemon.child.pid);

  // A consistent snapshot, as the trial copy of docs/scaling.md takes it; its lease row is the live one
  // (made to look fresh for a minute, so the test does not depend on how fast the copy starts).
  const snapshot = join(dir, 'trial.sqlite');
  await sql`vacuum into ${snapshot}`.execute(reader);
  await reader.destroy();
  const snap = openDatabase(snapshot);
  await snap.updateTable('worker_lease').set({ expires_at: Date.now() + 60_000 }).execute();
  assert.equal((await snap.selectFrom('worker_lease').select('pid').executeTakeFirstOrThrow()).pid, daemon.child.pid);
  await snap.destroy();

  const refusedInto = await freshDatabase(pg.url);
  const refused = await runWithEnv(['db', 'copy', '--to-env', 'T'], dir, { T: refusedInto });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, new RegExp(`still holds this SQLite database's worker lease \\(host .*, pid ${daemon.child.pid}\\)`));
  assert.match(refused.stderr, /For a trial copy while the shop runs, copy a snapshot instead: sqlite3 <database> "VACUUM INTO '<snapshot>'", then payd db copy --from <snapshot>/);

  const trial = await freshDatabase(pg.url);
  const copied = await runWithEnv(['db', 'copy', '--from', 'trial.sqlite', '--to-env', 'T'], dir, { T: trial });
  assert.equal(copied.status, 0, copied.stderr);
  assert.match(copied.stdout, /counts verified/);
  const target = openPostgres({ url: trial, pool: 1, statementTimeoutMs: 0 });
  t.after(() => target.destroy());
  assert.equal(await count(target, 'merchants'), 1);
  assert.equal(await count(target, 'worker_lease'), 0, 'the lease is not copied');
  // The shop never stopped.
  assert.equal(daemon.child.exitCode, null);
  assert.equal((await fetch(`${daemon.url}/healthz`)).status, 200);
});

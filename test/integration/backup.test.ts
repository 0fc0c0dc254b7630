// `payd backup`: a consistent snapshot of a running shop, private (0700 directory, 0600 files),
// verified, with a note naming the master key it needs and never containing it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { PAYD_BIN, runPayd, spawnPayd, workdir } from '../helpers/cli.ts';

const mode = (p: string) => statSync(p).mode & 0o777;

test('payd backup while the daemon serves creates: a 0600 snapshot in a new 0700 directory, verified, with a note of the key it needs (not the key)', async (t) => {
  const dir = workdir(t, { server: { port: 0, rateLimit: { perSecond: 0, burst: 1 } }, database: { file: 'data/payd.sqlite' } });
  const created = await runPayd(['merchant', 'create', '--sandbox', '--name', 'Shop', '--json'], dir);
  assert.equal(created.status, 0, created.stderr);
  const m = JSON.parse(created.stdout);
  const daemon = await spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir });
  t.after(() => daemon.child.kill('SIGKILL'));
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' };
  let n = 0;
  const create = async () => {
    n += 1;
    const res = await fetch(`${daemon.url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: n, currency: 'UPI', order_id: `o-${n}` }) });
    assert.equal(res.status, 200, await res.clone().text());
  };
  for (let i = 0; i < 20; i++) await create();
  const before = n;
  // Writes go on while the backup runs.
  let writing = true;
  const writer = (async () => {
    while (writing) await create();
  })();
  const target = join(dir, 'backups', 'nested');
  const r = await runPayd(['--sandbox', 'backup', '--to', target, '--json'], dir);
  writing = false;
  await writer;
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);

  assert.equal(mode(join(dir, 'backups')), 0o700);
  assert.equal(mode(target), 0o700);
  assert.deepEqual(readdirSync(target).sort(), [report.file, report.note].map((f: string) => f.slice(target.length + 1)).sort());
  assert.match(report.file, /payd-sandbox-\d{8}-\d{6}Z\.sqlite$/);
  assert.equal(mode(report.file), 0o600);
  assert.equal(mode(report.note), 0o600);
  assert.equal(report.integrity, 'ok');
  assert.equal(report.bytes, statSync(report.file).size);

  // Opened on its own: a whole database of one moment between the first 20 creates and the last.
  const copy = new SQLite(report.file, { readonly: true });
  t.after(() => copy.close());
  assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
  assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'one self-contained file, no -wal beside it');
  const intents = copy.prepare('select count(*) from intents').pluck().get() as number;
  assert.ok(intents >= before && intents <= n, `${intents} intents: between ${before} and ${n}`);
  assert.equal(report.rows.intents, intents);
  assert.equal(report.rows.merchants, 1);
  assert.equal(copy.prepare('select count(*) from merchants where id = ?').pluck().get(m.client_id), 1);

  // The key it needs, named by fingerprint and place; the key itself nowhere in what was written or printed.
  const keyFile = join(dir, 'data', 'payd-sandbox.sqlite.key');
  const key = readFileSync(keyFile, 'utf8').trim();
  const fingerprint = copy.prepare("select value from settings where key = 'master_key_fingerprint'").pluck().get() as string;
  assert.match(fingerprint, /^[0-9a-f]{32}$/);
  assert.equal(report.master_key.fingerprint, fingerprint);
  const note = readFileSync(report.note, 'utf8');
  assert.ok(note.includes(fingerprint) && note.includes(keyFile), note);
  assert.match(note, /The key is NOT in this backup/);
  for (const text of [note, r.stdout, r.stderr, readFileSync(report.file).toString('latin1')]) assert.ok(!text.includes(key), 'the master key is never copied');

  // Human output names the file, the check and the key.
  const again = await runPayd(['--sandbox', 'backup', '--to', target], dir);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /^backup .*payd-sandbox-.*\.sqlite \(\d+ bytes\), verified: integrity ok, \d+ intents, 0 payments, 1 merchants$/m);
  assert.match(again.stdout, new RegExp(`needs the master key with fingerprint ${fingerprint} \\(the key file ${keyFile.replaceAll('.', '\\.')}`));
  // A second backup (within the same second or not) never overwrites the first: two snapshots, two notes.
  assert.equal(readdirSync(target).filter((f) => f.endsWith('.sqlite')).length, 2);
  assert.equal(readdirSync(target).filter((f) => f.endsWith('.txt')).length, 2);
});

test('payd backup refuses PostgreSQL (pg_dump) and a missing database, writing nothing', async (t) => {
  const pg = workdir(t, { server: { masterKey: 'k'.repeat(32) }, database: { url: 'postgres://payd@127.0.0.1:1/payd' } });
  const r = await runPayd(['backup', '--to', join(pg, 'b')], pg);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /PostgreSQL.*pg_dump.*Nothing was written/);
  assert.equal(existsSync(join(pg, 'b')), false);

  const none = workdir(t, { database: { file: 'data/payd.sqlite' } });
  const missing = await runPayd(['backup', '--to', join(none, 'b')], none);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /no database at .*payd\.sqlite/);
  assert.equal(existsSync(join(none, 'b')), false);
  assert.equal(existsSync(join(none, 'data')), false);
});

test('systemd/payd-backup.service: its command lines, run as written (paths moved into a temp dir), make and keep a backup', async (t) => {
  const dir = workdir(t, { database: { file: 'data/payd.sqlite' } });
  const created = await runPayd(['merchant', 'create', '--name', 'Shop', '--json'], dir);
  assert.equal(created.status, 0, created.stderr);
  const unit = readFileSync(new URL('../../systemd/payd-backup.service', import.meta.url), 'utf8');
  const timer = readFileSync(new URL('../../systemd/payd-backup.timer', import.meta.url), 'utf8');
  assert.match(unit, /^User=payd$/m);
  assert.match(timer, /^OnCalendar=/m);
  const backups = join(dir, 'var-backups-payd');
  const line = (key: string) => {
    const v = new RegExp(`^${key}=(.+)$`, 'm').exec(unit)?.[1];
    assert.ok(v, key);
    return v
      .replace(/^\+/, '')
      .replaceAll('/opt/payd/bin/payd', `${process.execPath} ${PAYD_BIN}`)
      .replaceAll('/etc/payd/payd.config.json', join(dir, 'payd.config.json'))
      .replaceAll('/var/backups/payd', backups)
      // Nobody called payd here: the directory is the test user's.
      .replace(' -o payd -g payd', '');
  };
  for (const key of ['ExecStartPre', 'ExecStart', 'ExecStartPost']) execFileSync('bash', ['-c', line(key)], { cwd: dir, stdio: 'pipe' });
  assert.equal(mode(backups), 0o700);
  const files = readdirSync(backups).sort();
  assert.equal(files.length, 2, String(files));
  assert.match(files[0]!, /^payd-\d{8}-\d{6}Z\.sqlite$/);
  assert.match(files[1]!, /^payd-\d{8}-\d{6}Z\.txt$/);
  for (const f of files) assert.equal(mode(join(backups, f)), 0o600);
});

// Secrets beside the systemd unit: each command reads only the secrets it uses, a missing
// one fails with exit 2 saying how to supply it, and the database refuses another master key.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { PAYD_BIN, payd } from '../helpers/cli.ts';

const KEY_A = 'q2Fv6S0m2cJ8mQ0bqk8m8r3m0Pj3dQy5a3S8bP2s0yQ='; // base64 of 32 bytes, as `head -c 32 /dev/urandom | base64` writes
const KEY_B = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGw=';

/** A config as in the systemd recipe of docs/operations.md: master key and IMAP password from credentials. */
function setup(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'payd-creds-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const creds = join(dir, 'credentials');
  mkdirSync(creds);
  writeFileSync(join(creds, 'master-key'), KEY_A + '\n');
  writeFileSync(join(creds, 'imap-password'), 'imap-app-password\n');
  const config = {
    server: { host: '127.0.0.1', port: 0, masterKey: { file: '$CREDENTIALS_DIRECTORY/master-key' } },
    database: { file: 'state/payd.sqlite' },
    methods: {
      UPI: {
        vpa: 'shop@hdfcbank',
        payeeName: 'Example Shop',
        imap: { host: '127.0.0.1', port: 1, secure: false, user: 'alerts@example.com', password: { file: '$CREDENTIALS_DIRECTORY/imap-password' } },
        accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
      },
    },
  };
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  const unit = { CREDENTIALS_DIRECTORY: creds };
  return { dir, creds, unit, db: join(dir, 'state', 'payd.sqlite') };
}

test('read commands and migrate need no credentials; merchant create without them exits 2, says how, and changes nothing', async (t) => {
  const { dir, unit, db } = setup(t);
  const created = await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir, env: unit });
  assert.equal(created.code, 0, created.err);
  const clientId = created.json().client_id;

  for (const args of [['intents', 'list'], ['webhooks', 'list'], ['payments', 'list'], ['migrate'], ['merchant', 'list', '--json']]) {
    const r = await payd(args, { cwd: dir });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
  }
  const before = readFileSync(db);

  const refused = await payd(['merchant', 'create', '--name', 'Other'], { cwd: dir });
  assert.equal(refused.code, 2, refused.err);
  assert.match(refused.err, /server\.masterKey/);
  assert.match(refused.err, /"master-key" from \$CREDENTIALS_DIRECTORY/);
  assert.match(refused.err, /systemd-run .*-p LoadCredential=master-key:\/etc\/payd\/credentials\/master-key/);
  assert.match(refused.err, /nothing was changed/);
  assert.doesNotMatch(refused.err, /imap-password/, 'only the secret the command uses is asked for');
  assert.deepEqual(readFileSync(db), before, 'the database file is byte for byte the same');
  const list = (await payd(['merchant', 'list', '--json'], { cwd: dir })).json();
  assert.deepEqual(list.map((m: any) => m.client_id), [clientId]);

  // A secret from an unset environment variable is reported the same way, by the command that uses it.
  writeFileSync(join(dir, 'env.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8')), server: { host: '127.0.0.1', port: 0, masterKey: { env: 'PAYD_TEST_NOPE' } } }));
  assert.equal((await payd(['intents', 'list', '--config', 'env.json'], { cwd: dir })).code, 0);
  const env = await payd(['merchant', 'rotate-secret', clientId, '--config', 'env.json'], { cwd: dir });
  assert.equal(env.code, 2);
  assert.match(env.err, /server\.masterKey: environment variable PAYD_TEST_NOPE is not set/);
});

test('webhooks test without the master key exits 2 and changes nothing: no webhook.test event is left for a daemon to deliver', async (t) => {
  const { dir, unit, db } = setup(t);
  const created = await payd(['merchant', 'create', '--name', 'Shop', '--webhook-url', 'https://shop.example.com/hook', '--json'], { cwd: dir, env: unit });
  assert.equal(created.code, 0, created.err);
  const before = readFileSync(db);
  const refused = await payd(['webhooks', 'test', created.json().client_id], { cwd: dir });
  assert.equal(refused.code, 2, refused.err);
  assert.match(refused.err, /"master-key" from \$CREDENTIALS_DIRECTORY/);
  assert.match(refused.err, /nothing was changed/);
  assert.deepEqual(readFileSync(db), before, 'the database file is byte for byte the same');
  const events = await payd(['webhooks', 'list', '--json'], { cwd: dir });
  assert.equal(events.code, 0, events.err);
  assert.deepEqual(events.json(), []);
});

test('the database remembers its master key: a CLI or daemon with another key refuses before doing anything', async (t) => {
  const { dir, creds, unit, db } = setup(t);
  assert.equal((await payd(['merchant', 'create', '--name', 'Shop'], { cwd: dir, env: unit })).code, 0);
  writeFileSync(join(creds, 'master-key'), KEY_B + '\n');
  const before = readFileSync(db);
  const cli = await payd(['merchant', 'create', '--name', 'Other'], { cwd: dir, env: unit });
  assert.equal(cli.code, 2);
  assert.match(cli.err, /not the one this database was set up with/);
  assert.deepEqual(readFileSync(db), before);

  // The daemon refuses at start: it never listens.
  const child = spawn(process.execPath, [PAYD_BIN, 'serve', '--port', '0'], { cwd: dir, env: { ...process.env, ...unit }, stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => resolve(-1), 90_000);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  assert.ok(code !== 0 && code !== -1, `exit code ${code}`);
  assert.match(stderr, /not the one this database was set up with/);
  assert.doesNotMatch(stderr, /payd listening/);

  // Back to the right key: everything works again.
  writeFileSync(join(creds, 'master-key'), KEY_A + '\n');
  assert.equal((await payd(['merchant', 'create', '--name', 'Other'], { cwd: dir, env: unit })).code, 0);
});

test('one derivation: the key file and a configured key with the same text are the same key', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-keyfile-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify({ database: { file: 'state/payd.sqlite' } }));
  const created = await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir });
  assert.equal(created.code, 0, created.err);
  const keyFile = join(dir, 'state', 'payd.sqlite.key');
  // Owner-only files and directory, without systemd's help.
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'state', 'payd.sqlite')).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'state')).mode & 0o777, 0o700);

  // The same text as a configured secret: accepted (and it rotates the secret, so it is used).
  writeFileSync(join(dir, 'master-key'), readFileSync(keyFile));
  writeFileSync(join(dir, 'configured.json'), JSON.stringify({ database: { file: 'state/payd.sqlite' }, server: { masterKey: { file: 'master-key' } } }));
  const rotated = await payd(['merchant', 'rotate-webhook-secret', created.json().client_id, '--config', 'configured.json'], { cwd: dir });
  assert.equal(rotated.code, 0, rotated.err);

  // The key file gone: no silent second key.
  rmSync(keyFile);
  const missing = await payd(['merchant', 'create', '--name', 'Other'], { cwd: dir });
  assert.equal(missing.code, 2);
  assert.match(missing.err, /master key file .* is missing/);
  assert.equal((await payd(['merchant', 'list', '--json'], { cwd: dir })).json().length, 1);
});

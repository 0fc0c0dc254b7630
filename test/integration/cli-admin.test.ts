import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { PAYD_BIN, payd, runPayd as run, workdir } from '../helpers/cli.ts';
import { startPayd } from '../helpers/payd.ts';

/** bin/payd on a real terminal (util-linux `script` gives it a pty); answers the first y/N question. */
function onTerminal(args: string[], cwd: string, answer: 'y' | 'n'): Promise<{ code: number | null; out: string }> {
  const cmd = [process.execPath, PAYD_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let answered = false;
  const onData = (d: Buffer) => {
    out += d;
    if (!answered && out.includes('(y/N)')) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

test('merchant rotate-secret --grace: both secrets work during the grace, the CLI says until when', async (t) => {
  const dir = workdir(t, { database: { file: 'data/payd.sqlite' }, server: { port: 0 } });
  const m = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const bad = await payd(['merchant', 'rotate-secret', m.client_id, '--grace', '2 weeks'], { cwd: dir });
  assert.equal(bad.code, 2);
  const before = Date.now();
  const r = await payd(['merchant', 'rotate-secret', m.client_id, '--grace', '24h', '--json'], { cwd: dir });
  assert.equal(r.code, 0, r.err);
  const rotated = r.json();
  const until = Date.parse(rotated.previous_valid_until);
  assert.ok(until >= before + 86_400_000 && until <= Date.now() + 86_400_000, rotated.previous_valid_until);
  const config = { database: { file: 'data/payd.sqlite' }, server: { port: 0 } };
  const during = await startPayd({ dir, rawConfig: config });
  const status = async (d: typeof during, secret: string) => (await d.api('GET', '/api/v1/intents/5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10', { headers: { 'x-client-id': m.client_id, 'x-client-secret': secret } })).status;
  assert.equal(await status(during, m.client_secret), 404, 'the old secret works during the grace');
  assert.equal(await status(during, rotated.client_secret), 404, 'and the new one');
  await during.close();
  const plain = await payd(['merchant', 'rotate-secret', m.client_id], { cwd: dir });
  assert.match(plain.err, /The old client secret keeps working until \S+ \(10m\)/);
  const newest = /client_secret +(\S+)/.exec(plain.out)![1];
  const now = await payd(['merchant', 'rotate-secret', m.client_id, '--grace', '0'], { cwd: dir });
  assert.notEqual(newest, rotated.client_secret);
  assert.match(now.err, /stopped working now/);
  // Against a running daemon: after `--grace 0` the secret before it is refused at once.
  const p = await startPayd({ dir, rawConfig: { database: { file: 'data/payd.sqlite' }, server: { port: 0 } } });
  t.after(() => p.close());
  const get = async (secret: string) => (await p.api('GET', '/api/v1/intents/5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10', { headers: { 'x-client-id': m.client_id, 'x-client-secret': secret } })).status;
  assert.equal(await get(newest), 403);
  assert.equal(await get(/client_secret +(\S+)/.exec(now.out)![1]), 404);
});

test('revoke and intents settle ask on a terminal; "n" changes nothing, "y" and --yes go ahead', async (t) => {
  const dir = workdir(t, { database: { file: 'data/payd.sqlite' } });
  const m = (await payd(['merchant', 'create', '--name', 'Chai Shop', '--json'], { cwd: dir })).json();
  const no = await onTerminal(['merchant', 'revoke', m.client_id], dir, 'n');
  assert.equal(no.code, 1, no.out);
  assert.match(no.out, /Revoke Chai Shop \(/);
  assert.match(no.out, /not revoked: not confirmed/);
  assert.match((await payd(['merchant', 'list'], { cwd: dir })).out, /active/);
  const yes = await onTerminal(['merchant', 'revoke', m.client_id], dir, 'y');
  assert.equal(yes.code, 0, yes.out);
  assert.match((await payd(['merchant', 'list'], { cwd: dir })).out, /revoked/);

  // intents settle: a sandbox intent, settled by hand only after a "y".
  const sm = (await payd(['--sandbox', 'merchant', 'create', '--name', 'Dev', '--json'], { cwd: dir })).json();
  const p = await startPayd({ dir, sandbox: true, rawConfig: { database: { file: 'data/payd.sqlite' }, server: { port: 0 } } });
  const intent = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1499, currency: 'UPI', order_id: 'o-1' }, headers: { 'x-client-id': sm.client_id, 'x-client-secret': sm.client_secret } })).body;
  await p.close();
  const refuse = await onTerminal(['--sandbox', 'intents', 'settle', intent.intent_id, '--tx', '412345678901'], dir, 'n');
  assert.equal(refuse.code, 1);
  assert.match(refuse.out, /Settle UPI 1499\.01 \(order o-1\)/);
  assert.match((await payd(['--sandbox', 'intents', 'show', intent.intent_id, '--json'], { cwd: dir })).out, /"status": "pending"/);
  const settle = await onTerminal(['--sandbox', 'intents', 'settle', intent.intent_id, '--tx', '412345678901'], dir, 'y');
  assert.equal(settle.code, 0, settle.out);
  assert.match(settle.out, /settled .* with 412345678901/);
  // --yes never asks (scripts): nothing is waiting for an answer.
  const m2 = (await payd(['merchant', 'create', '--name', 'Two', '--json'], { cwd: dir })).json();
  const scripted = await onTerminal(['merchant', 'revoke', m2.client_id, '--yes'], dir, 'n');
  assert.equal(scripted.code, 0, scripted.out);
  assert.doesNotMatch(scripted.out, /\(y\/N\)/);
});


test('payd --version prints the package version; serve --port 99999 is a usage error', async (t) => {
  const dir = workdir(t);
  const [v, bad, demo] = await Promise.all([run(['--version'], dir), run(['serve', '--port', '99999'], dir), run(['demo', '--port', 'eighty'], dir)]);
  assert.equal(v.status, 0, v.stderr);
  assert.equal(v.stdout.trim(), 'payd 0.1.0');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--port <port>' argument '99999' is invalid\. expected a port number 0-65535/);
  assert.equal(demo.status, 2);
  assert.deepEqual(readdirSync(dir), [], 'usage errors create nothing');
});


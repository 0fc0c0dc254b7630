// The request log as operators meet it: `payd serve` with stderr redirected to a file
// (JSON lines, every request logged, nothing lost at shutdown, secrets redacted) and on a
// terminal (compact human-readable lines). Real bin/payd processes; the terminal is a real
// pseudo-terminal from util-linux `script`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { baseConfig } from '../helpers/payd.ts';
import { logLines, payd, PAYD_BIN } from '../helpers/cli.ts';
import { waitFor } from '../helpers/wait.ts';

function workdir(t: import('node:test').TestContext, config: object) {
  const dir = mkdtempSync(join(tmpdir(), 'payd-log-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  return dir;
}

test('serve with stderr to a file: one JSON line per request, all of them written by the time it exits, no secret in the file', async (t) => {
  const dir = workdir(t, { ...baseConfig(''), database: { file: 'data/payd.sqlite' }, methods: {} });
  const m = (await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).json();
  const logFile = join(dir, 'payd.log');
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, [PAYD_BIN, 'serve', '--port', '0'], { cwd: dir, stdio: ['ignore', 'ignore', fd] });
  closeSync(fd);
  t.after(() => child.kill('SIGKILL'));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = await waitFor(async () => logLines(readFileSync(logFile, 'utf8')).find((l) => l.msg === 'payd listening')?.url as string | undefined, 20_000, 'payd listening');

  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' };
  const N = 200;
  await Promise.all(
    Array.from({ length: N }, (_, i) =>
      fetch(`${url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 10, currency: 'UPI', order_id: `o-${i}` }) }).then((r) => r.text()),
    ),
  );
  child.kill('SIGTERM');
  assert.equal(await exited, 0);

  const text = readFileSync(logFile, 'utf8');
  const lines = logLines(text);
  assert.equal(lines.length, text.trim().split('\n').length, 'every line of the file is JSON');
  const requests = lines.filter((l) => l.msg === 'request' && l.path === '/api/v1/intents/create-payment');
  assert.equal(requests.length, N, 'one request line per request, none lost at shutdown');
  for (const r of requests.slice(0, 5)) {
    assert.equal(r.level, 'info');
    assert.match(r.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(r.client_id, m.client_id);
    assert.equal(typeof r.ms, 'number');
  }
  assert.equal(lines.at(-1)!.msg, 'stopped');
  assert.ok(!text.includes(m.client_secret), 'the client secret never reaches the log');
});

test('serve on a terminal: compact human-readable lines instead of JSON', async (t) => {
  const dir = workdir(t, { ...baseConfig(''), database: { file: 'data/payd.sqlite' }, methods: {} });
  // `script` runs the command on a new pseudo-terminal and copies what it prints to our stdout.
  const cmd = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(PAYD_BIN)} serve --port 0`;
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await waitFor(async () => /payd listening/.test(out), 20_000, 'payd listening on the terminal');
  const line = out.split(/\r?\n/).find((l) => l.includes('payd listening'))!;
  assert.match(line, /^\d\d:\d\d:\d\d\.\d{3} INFO  payd listening  url=http:\/\/127\.0\.0\.1:\d+ livemode=true database=\S+payd\.sqlite$/);
  assert.ok(!out.includes('{"level"'), `no JSON on a terminal:\n${out}`);
});

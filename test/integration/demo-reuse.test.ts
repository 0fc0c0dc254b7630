// `npm run demo` (payd demo) run again in the same folder keeps its one "Demo shop": the second
// banner names the same merchant with a fresh client secret that works, and no second shop appears.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { PAYD_BIN, payd, workdir } from '../helpers/cli.ts';

/** Runs `payd demo --port 0` until its banner is printed, then stops it; the banner's credentials, checked against the daemon. */
async function demoOnce(dir: string): Promise<{ clientId: string; secret: string }> {
  const child = spawn(process.execPath, [PAYD_BIN, 'demo', '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  try {
    const deadline = Date.now() + 30_000;
    while (!out.includes('Invite this browser') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    const clientId = /X-Client-ID: +(\S+)/.exec(out)?.[1];
    const secret = /X-Client-Secret: +(\S+)/.exec(out)?.[1];
    // `--port 0`: the banner names the port the system picked, in its curl lines and the console's address alike.
    const base = /curl -s (http:\/\/\S+)\/api\/v1\/intents\/create-payment/.exec(out)?.[1];
    const consolePort = /The operator console: http:\/\/localhost:(\d+)\/console/.exec(out)?.[1];
    assert.ok(clientId && secret && base && consolePort, `the banner: ${out}`);
    assert.equal(new URL(base).port, consolePort, `the curl lines and the console name one port: ${out}`);
    assert.notEqual(consolePort, '0');
    // The secret printed is one the running demo accepts.
    const listed = await fetch(`${base}/api/v1/intents`, { headers: { 'X-Client-ID': clientId, 'X-Client-Secret': secret } });
    assert.equal(listed.status, 200, await listed.text());
    return { clientId, secret };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

test('a second demo reuses the Demo shop: same client id, a fresh working secret, one merchant', async (t) => {
  const dir = workdir(t);
  const first = await demoOnce(dir);
  const second = await demoOnce(dir);
  assert.equal(second.clientId, first.clientId, 'the same Demo shop');
  assert.notEqual(second.secret, first.secret, 'a fresh secret (only its hash was kept)');
  const merchants = (await payd(['--sandbox', 'merchant', 'list', '--json'], { cwd: dir })).json() as Array<{ name: string; status: string }>;
  assert.deepEqual(
    merchants.map((m) => `${m.name} ${m.status}`),
    ['Demo shop active'],
  );
});

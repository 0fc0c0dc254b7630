// The shipped unit's system call filter, applied for real: systemd/payd.service's
// SystemCallFilter= lines expanded by this machine's `systemd-analyze syscall-filter` and
// installed with libseccomp (test/helpers/seccomp-unit.py), then the real bin/payd runs under it:
// migrate, serve, a sandbox payment settled and its webhook delivered, a clean stop. V8 calls
// pkey_alloc once it compiles WebAssembly (on a CPU with `pku` already at start); systemd 252
// keeps it in @pkey, outside @system-service, so the old filter killed payd with SIGSYS. A probe
// and strace show the filter's decision for those calls.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { PAYD_BIN, logLines, payd, workdir } from '../helpers/cli.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const UNIT = here('../../systemd/payd.service');
const LAUNCH = here('../helpers/seccomp-unit.py');
const PROBE = here('../helpers/syscall-probe.py');
// Debian's interpreter, for which python3-seccomp is built (a python3 earlier on PATH may lack it).
const PYTHON = '/usr/bin/python3';
const EPERM = 1;

/** The unit as shipped before: @system-service only, and a refused call kills. */
function oldUnit(dir: string): string {
  const lines = readFileSync(UNIT, 'utf8')
    .split('\n')
    .filter((l) => !/^SystemCall(Filter|ErrorNumber)=/.test(l));
  const at = lines.indexOf('[Install]');
  lines.splice(at, 0, 'SystemCallFilter=@system-service', 'SystemCallFilter=~@privileged @resources', '');
  const file = join(dir, 'old-payd.service');
  writeFileSync(file, lines.join('\n'));
  return file;
}

/** Runs `command` under `unit`'s filter to its end. */
const underFilter = (unit: string, command: string[], cwd?: string) => spawnSync(PYTHON, [LAUNCH, unit, ...command], { cwd, encoding: 'utf8', timeout: 120_000 });

test("the unit's filter: V8's pkey_* calls are allowed, a call outside the list fails with EPERM instead of killing; the old filter killed on pkey_alloc", (t) => {
  const dir = workdir(t);
  const probe = underFilter(UNIT, [PYTHON, PROBE]);
  assert.equal(probe.status, 0, `probe under the unit: ${probe.stderr} (signal ${probe.signal})`);
  const calls = JSON.parse(probe.stdout) as Record<string, [number, number]>;
  for (const name of ['pkey_alloc', 'pkey_mprotect', 'pkey_free']) {
    // The kernel's own answer (a key on a `pku` CPU, EINVAL without), never the filter's EPERM.
    assert.notEqual(calls[name]![1], EPERM, `${name}: ${calls[name]}`);
  }
  assert.deepEqual(calls.swapoff, [-1, EPERM], 'refused by SystemCallErrorNumber=EPERM, not killed');

  // The old unit: pkey_alloc is outside @system-service on systemd 252, and a refused call is SIGSYS.
  const old = underFilter(oldUnit(dir), [PYTHON, PROBE]);
  assert.equal(old.signal, 'SIGSYS', `old unit: status ${old.status}, ${old.stdout}${old.stderr}`);

  // payd itself. Node 20's V8 asks for a memory-protection key (pkey_alloc) when it first compiles
  // WebAssembly (undici's HTTP parser is WebAssembly), on any CPU: EINVAL without `pku`, a key with
  // it. The old filter killed `payd migrate`; under the unit's, strace sees the kernel's own answer.
  const config = join(dir, 'payd.config.json');
  writeFileSync(config, JSON.stringify({ database: { file: 'data/payd.sqlite' } }));
  const killed = underFilter(oldUnit(dir), [PAYD_BIN, 'migrate', '--config', config], dir);
  assert.equal(killed.signal, 'SIGSYS', `old unit, payd migrate: status ${killed.status}, ${killed.stderr}`);
  const trace = join(dir, 'strace.txt');
  const traced = spawnSync('strace', ['-f', '-qq', '-o', trace, '-e', 'trace=pkey_alloc,pkey_mprotect,pkey_free', PYTHON, LAUNCH, UNIT, PAYD_BIN, 'migrate', '--config', config], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.equal(traced.status, 0, `${traced.stderr} (signal ${traced.signal})`);
  const pkeyCalls = readFileSync(trace, 'utf8').split('\n').filter((l) => /pkey_/.test(l));
  // Node 22's and 24's V8 ask for no key during `payd migrate` (none seen under strace).
  if (process.versions.node.startsWith('20.')) assert.ok(pkeyCalls.some((l) => /pkey_alloc\(/.test(l)), `V8 asked for a key:\n${pkeyCalls.join('\n')}`);
  for (const call of pkeyCalls) assert.doesNotMatch(call, /= -1 EPERM|SIGSYS/, call);
});

test("bin/payd under the unit's filter: migrate, serve, a sandbox payment settled and its webhook delivered, SIGTERM → exit 0", async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = workdir(t, { database: { file: 'data/payd.sqlite' }, server: { port: 0 }, webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 5 } });
  const config = join(dir, 'payd.config.json');
  // The unit's ExecStartPre= and ExecStart=, under its filter.
  const migrated = underFilter(UNIT, [PAYD_BIN, 'migrate', '--sandbox', '--config', config], dir);
  assert.equal(migrated.status, 0, `${migrated.stdout}${migrated.stderr} (signal ${migrated.signal})`);
  const m = (await payd(['merchant', 'create', '--sandbox', '--name', 'Shop', '--webhook-url', receiver.url, '--json'], { cwd: dir })).json();

  const child = spawn(PYTHON, [LAUNCH, UNIT, PAYD_BIN, 'serve', '--sandbox', '--port', '0', '--config', config], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let gone: { code: number | null; signal: string | null } | undefined;
  void exited.then((e) => (gone = e));
  const url = await waitFor(
    async () => {
      if (gone) throw new Error(`payd exited (${JSON.stringify(gone)}) before listening:\n${stderr}`);
      return logLines(stderr).find((l) => l.msg === 'payd listening')?.url as string | undefined;
    },
    90_000,
    'payd listening',
  );
  // The launcher exec'd bin/payd (env, then node): the daemon itself runs filtered.
  assert.match(readFileSync(`/proc/${child.pid}/status`, 'utf8'), /^Seccomp:\s+2$/m);
  assert.match(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8'), /node/);

  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' };
  const res = await fetch(`${url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 499, currency: 'UPI', order_id: 'seccomp-1' }) });
  assert.equal(res.status, 200);
  const intent = (await res.json()) as any;
  const paid = await payd(['sandbox', 'pay', intent.intent_id], { cwd: dir });
  assert.equal(paid.code, 0, paid.err);
  // The filtered daemon notices the settlement, signs and delivers the webhook.
  const [hook] = await receiver.waitFor(1, 30_000);
  const payload = new Webhook(m.webhook_secret).verify(hook!.body, {
    'webhook-id': String(hook!.headers['webhook-id']),
    'webhook-timestamp': String(hook!.headers['webhook-timestamp']),
    'webhook-signature': String(hook!.headers['webhook-signature']),
  }) as any;
  assert.equal(payload.type, 'payment.success');
  assert.equal(payload.data.intent_id, intent.intent_id);
  const fetched = (await (await fetch(`${url}/api/v1/intents/${intent.intent_id}`, { headers })).json()) as any;
  assert.equal(fetched.status, 'settled');
  assert.equal((await fetch(`${url}/readyz`)).status, 200);

  child.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.match(stderr, /"msg":"stopped"/);
});

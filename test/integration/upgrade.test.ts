// The upgrade of docs/operations.md, run as written against a running daemon.
// A local clone of this repository stands in for the upstream; /opt/payd lives in a temp dir;
// the daemon is started with the systemd unit's own ExecStartPre/ExecStart lines. The only
// stand-in is `npm ci`, which needs the registry: a shim on PATH does what it does offline
// (replace node_modules with a fresh copy of this checkout's, then run `prepare`, the build).
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { logLines } from '../helpers/cli.ts';
import { RECEIVERS } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
const UNIT = readFileSync(join(ROOT, 'systemd/payd.service'), 'utf8');

/** The lines of the first ```sh block after `marker` (list indentation removed). */
function shBlockAfter(marker: string): string[] {
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `docs/operations.md has ${marker}`);
  const m = /\n( *)```sh\n([\s\S]*?)\n *```/.exec(README.slice(at));
  assert.ok(m, `a sh block after ${marker}`);
  return m[2]!.split('\n').map((l) => l.slice(m[1]!.length));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

test('the README upgrade (new release beside the running one, switch the link, one restart) never breaks the running shop', { timeout: 290_000 }, async (t) => {
  const t0 = Date.now();
  const mark = (what: string) => t.diagnostic(`${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const tmp = mkdtempSync(join(tmpdir(), 'payd-upgrade-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const opt = join(tmp, 'opt');
  mkdirSync(opt);
  const state = join(tmp, 'var-lib-payd');
  mkdirSync(state, { mode: 0o700 });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = join(tmp, 'payd.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      server: { host: '127.0.0.1', port, publicUrl: url, rateLimit: { perSecond: 0, burst: 1 } },
      database: { file: join(state, 'payd.sqlite') },
      webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 5, allowLoopback: true },
      // A live method whose upstream is closed: payments arrive by manual settlement (`intents settle`).
      methods: { USDT_TRC20: { address: RECEIVERS.USDT_TRC20, apiUrl: 'http://127.0.0.1:1' } },
    }),
  );

  // The upstream repository: this checkout's files at a first commit.
  const origin = join(tmp, 'origin');
  const skip = new Set(['node_modules', 'dist', '.git', 'data', 'tmp']);
  cpSync(ROOT, origin, { recursive: true, filter: (src) => !skip.has(src.slice(ROOT.length).split('/').filter(Boolean)[0] ?? '') || src === ROOT });
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();
  git(origin, 'init', '-q');
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', 'release 1');

  // `npm ci` offline: a fresh copy of this checkout's node_modules (hard links where possible), then `prepare`.
  const modules = realpathSync(join(ROOT, 'node_modules'));
  const bin = join(tmp, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'npm'),
    `#!/bin/sh
set -e
if [ "$1" = ci ]; then
  rm -rf node_modules dist
  cp -al '${modules}' node_modules 2>/dev/null || { rm -rf node_modules; cp -a '${modules}' node_modules; }
  exec node scripts/build.mjs
fi
if [ "$1" = prune ]; then shift; exec '${execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()}' prune "$@" --offline --no-audit --no-fund; fi
echo "npm shim: unexpected npm $*" >&2; exit 1
`,
  );
  chmodSync(join(bin, 'npm'), 0o755);
  // The doc's lines → this sandbox: no sudo, /opt → the temp dir, the repository → the local upstream.
  // A restart inside the lines (the first-time conversion's, skipped here) must never reach the host's systemd.
  const adapt = (line: string) =>
    line.replaceAll('sudo ', '').replaceAll('/opt/payd', join(opt, 'payd')).replaceAll('<this repository>', origin).replaceAll('systemctl restart payd', '{ echo unexpected restart >&2; false; }');
  const sh = (lines: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', lines.map(adapt).join('\n')], { cwd: tmp, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`README lines failed (${code}):\n${lines.join('\n')}\n${out}`))));
    });

  // The install lines of "Running under systemd" that put the code in place (users, /etc and systemctl are not ours to run).
  const install = shBlockAfter('## Running under systemd').filter((l) => /payd-releases|<this repository>|ln -sn/.test(l) && !l.startsWith('#'));
  assert.ok(install.some((l) => l.includes('git clone')) && install.some((l) => l.includes('ln -sn')), `install lines found:\n${install.join('\n')}`);
  await sh(install);
  mark('release 1 installed');

  // The daemon as systemd starts it: the unit's own command lines, in its working directory.
  const unitCommand = (key: string) => {
    const line = new RegExp(`^${key}=(.+)$`, 'm').exec(UNIT)?.[1];
    assert.ok(line, `the unit has ${key}=`);
    return adapt(line).replaceAll('/etc/payd/payd.config.json', config).split(/\s+/);
  };
  const run = (argv: string[], ...extra: string[]) => execFileSync(argv[0]!, [...argv.slice(1), ...extra], { cwd: state, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const cli = (...args: string[]) => run([join(opt, 'payd', 'bin', 'payd'), '--config', config], ...args);
  let daemon: { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } | null = null;
  const startDaemon = async () => {
    run(unitCommand('ExecStartPre'));
    const [cmd, ...args] = unitCommand('ExecStart');
    const child = spawn(cmd!, args, { cwd: state, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stderr!.on('data', (d) => (stderr += d));
    await waitFor(async () => logLines(stderr).some((l) => l.msg === 'payd listening') || (child.exitCode !== null && Promise.reject(new Error(stderr))), 60_000, 'the daemon to listen');
    daemon = { child, stderr: () => stderr, exited };
  };
  const stopDaemon = async () => {
    const d = daemon!;
    d.child.kill('SIGTERM');
    assert.equal(await d.exited, 0, `a clean stop:\n${d.stderr()}`);
    daemon = null;
  };
  t.after(() => daemon?.child.kill('SIGKILL'));
  await startDaemon();
  const firstPid = daemon!.child.pid;
  mark('daemon started');

  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const m = JSON.parse(cli('merchant', 'create', '--name', 'Shop', '--webhook-url', receiver.url, '--json'));
  const headers = { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' };

  // The shop's traffic, all through the upgrade: create and fetch, every failure kept.
  const failures: string[] = [];
  let served = 0;
  let n = 0;
  let paused = false;
  let stop = false;
  const create = async () => {
    n += 1;
    const res = await fetch(`${url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: n, currency: 'USDT_TRC20', order_id: `order-${n}` }) });
    const body = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`create ${res.status} ${JSON.stringify(body)}`);
    const got = await fetch(`${url}/api/v1/intents/${body.intent_id}`, { headers });
    if (got.status !== 200) throw new Error(`fetch ${got.status} ${await got.text()}`);
    return body as { intent_id: string; checkout_url: string };
  };
  t.after(() => void (stop = true));
  let current: Promise<void> = Promise.resolve();
  const traffic = (async () => {
    while (!stop) {
      if (!paused) {
        current = create().then(
          () => void (served += 1),
          (err) => void failures.push(String(err)),
        );
        await current;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  /** What the merchant and the shopper see: the checkout page, the OpenAPI document, a settlement's webhook. */
  const shopWorks = async (what: string) => {
    const intent = await create();
    const page = await fetch(intent.checkout_url);
    const html = await page.text();
    assert.equal(page.status, 200, `${what}: the checkout page: ${html.slice(0, 300)}`);
    assert.match(html, /<html/i);
    const doc = await fetch(`${url}/api/v1/openapi.json`);
    assert.equal(doc.status, 200, `${what}: the OpenAPI document: ${await doc.clone().text()}`);
    const before = receiver.received.length;
    cli('intents', 'settle', intent.intent_id, '--tx', randomBytes(32).toString('hex'), '--yes');
    await receiver.waitFor(before + 1, 15_000);
    const hook = JSON.parse(receiver.received.at(-1)!.body);
    assert.equal(hook.type, 'payment.success', what);
    assert.equal(hook.data.intent_id, intent.intent_id, what);
    return ((await doc.json()) as any).info.version as string;
  };

  // The next release upstream: another OpenAPI version, so a chunk of dist/ changes name.
  const documentTs = join(origin, 'src/http/openapi/document.ts');
  const source = readFileSync(documentTs, 'utf8');
  assert.ok(source.includes("version: '1.0.0'"));
  writeFileSync(documentTs, source.replace("version: '1.0.0'", "version: '1.0.0-next'"));
  git(origin, 'commit', '-qam', 'release 2');

  const upgrade = shBlockAfter('**Upgrading.**');
  const restartAt = upgrade.findIndex((l) => l.trim() === 'sudo systemctl restart payd');
  assert.ok(restartAt > 0, 'the upgrade restarts payd');
  // Release directories are named by the second: the upgrade's must differ from the install's.
  await new Promise((r) => setTimeout(r, 1100));
  mark('upgrade starts');
  await sh(upgrade.slice(0, restartAt));
  mark('release 2 installed and switched to');
  const releases = readdirSync(join(opt, 'payd-releases'));
  assert.equal(releases.length, 2, `two releases: ${releases}`);

  // Switched, not yet restarted: the old daemon serves everything it had never loaded, from its own release.
  assert.equal(daemon!.child.pid, firstPid);
  assert.equal(await shopWorks('before the restart'), '1.0.0');
  assert.match(cli('--version'), /payd/);

  // The one restart (systemctl restart: stop, then ExecStartPre and ExecStart again).
  mark('the old daemon served what it had not loaded yet');
  paused = true;
  await current; // (systemd stops the daemon while requests run, too: the shutdown test covers those)
  await stopDaemon();
  await startDaemon();
  paused = false;
  mark('restarted');
  assert.equal(await shopWorks('after the restart'), '1.0.0-next');

  await sh(upgrade.slice(restartAt + 1));
  await new Promise((r) => setTimeout(r, 500));
  stop = true;
  await traffic;
  assert.deepEqual(failures, [], 'no request failed while upgrading');
  assert.ok(served >= 5, `traffic ran throughout (${served} creates)`);
  // Both releases kept (the running one and the one to roll back to); the link names the new one.
  const kept = readdirSync(join(opt, 'payd-releases'));
  assert.deepEqual(kept.sort(), releases.sort());
  assert.ok(realpathSync(join(opt, 'payd')).endsWith(releases.sort().at(-1)!));
  assert.ok(existsSync(join(opt, 'payd', 'dist', 'main.js')));
  await stopDaemon();
});

test('the README upgrade\'s first-time line turns an /opt/payd directory (installed before releases) into the link to its first release, once', async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'payd-upgrade-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const opt = join(tmp, 'opt');
  mkdirSync(join(opt, 'payd', 'bin'), { recursive: true });
  writeFileSync(join(opt, 'payd', 'bin', 'payd'), 'the old install\n');
  const once = shBlockAfter('**Upgrading.**').filter((l) => l.startsWith('[ -L /opt/payd ]'));
  assert.equal(once.length, 1, 'one first-time line');
  // The restart in it makes the daemon resolve its files through the release's own path (the upgrade test's part);
  // the old directory goes only after it.
  assert.match(once[0]!, /&& sudo systemctl restart payd && sudo rm -rf \/opt\/payd\.before-releases; }$/);
  const script = once[0]!.replaceAll('sudo ', '').replaceAll('/opt/payd', join(opt, 'payd'));
  // Until the restart, the daemon (started from the directory) loads its lazy parts by /opt/payd/… paths:
  // at the restart, those paths must still answer with the old install's files.
  const atRestart = join(tmp, 'at-restart');
  const restart = `cat ${join(opt, 'payd', 'bin', 'payd')} > ${atRestart}`;
  for (let i = 0; i < 2; i++) execFileSync('bash', ['-euo', 'pipefail', '-c', script.replace('systemctl restart payd', restart)]);
  assert.equal(readFileSync(atRestart, 'utf8'), 'the old install\n');
  assert.equal(realpathSync(join(opt, 'payd')), join(opt, 'payd-releases', '0-initial'));
  assert.equal(readFileSync(join(opt, 'payd', 'bin', 'payd'), 'utf8'), 'the old install\n');
  assert.deepEqual(readdirSync(join(opt, 'payd-releases')), ['0-initial']);
  assert.equal(existsSync(join(opt, 'payd.before-releases')), false, 'the old directory is removed after the restart');
});

// Ad-hoc: where a fetch's CPU goes, kernel and native code included, for the durable ceiling and
// `payd serve` under the same load (not part of npm run bench; needs Linux `perf`). Each server
// is sampled with `perf record -g` while it alone is loaded; the samples are divided by the
// requests it answered, so the figures are µs per request: by binary, by system call, and the
// symbols where payd spends most beyond the ceiling. V8 CPU profiles (prof-pair.ts) miss the
// kernel and better-sqlite3's native code, which are half of a fetch.
// Usage: node --import tsx bench/probes/perf-pair.ts [outdir] [seconds]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon, { type Request } from 'autocannon';
import { startChild } from '../lib/child.ts';
import { ensureBuild, preparePaydDir, startServe } from '../lib/payd-process.ts';
import type { DurableServerData } from '../lib/servers/durable.ts';

const [out = '/tmp/payd-perf-pair', secs = '5'] = process.argv.slice(2);
const HZ = 2000;
mkdirSync(out, { recursive: true });
ensureBuild(console.error);
const d = preparePaydDir();
// --perf-basic-prof names JIT code for perf (/tmp/perf-<pid>.map); the V8 log it also turns on goes to `out`.
const perfMap = ['--perf-basic-prof', `--logfile=${join(out, 'v8-%p.log')}`, '--no-logfile-per-isolate'];
const p = await startServe(d, { execArgv: perfMap });
const ceiling = await startChild<DurableServerData>('durable', ['300'], { execArgv: perfMap });
const ids: string[] = [];
for (let i = 0; i < 300; i++) {
  const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers: { ...d.headers, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 100 + i, currency: 'UPI', order_id: `perf-${i}` }) });
  ids.push(((await r.json()) as { intent_id: string }).intent_id);
}
const get = (pathOf: (id: string) => string, list: string[], h: Record<string, string>): Request => {
  let i = 0;
  return { method: 'GET', path: pathOf(list[0]!), headers: h, setupRequest: (r) => ({ ...r, path: pathOf(list[i++ % list.length]!) }) };
};

/** perf's folded stacks (leaf first) of `pid` while `req` loads `url`, and the requests answered meanwhile. */
async function sample(name: string, url: string, req: Request, pid: number): Promise<{ stacks: string[][]; requests: number }> {
  await autocannon({ url, connections: 10, duration: 1, requests: [req] });
  const data = join(out, `${name}.data`);
  const rec = spawn('perf', ['record', '-F', String(HZ), '-g', '-p', String(pid), '-o', data, '--', 'sleep', secs], { stdio: 'ignore' });
  const r = await autocannon({ url, connections: 10, duration: Number(secs), requests: [req] });
  await new Promise((done) => rec.on('exit', done));
  const text = spawnSync('perf', ['script', '-i', data, '-F', 'ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
  const stacks = text.split('\n\n').map((s) => s.split('\n').map((l) => l.trim().split(/\s+/).slice(1).join(' ')).filter(Boolean)).filter((s) => s.length > 0);
  return { stacks, requests: r.requests.total };
}

const measured = {
  ceiling: await sample('ceiling', ceiling.data.url, get((id) => `/items/${id}`, ceiling.data.itemIds, {}), ceiling.proc.pid!),
  payd: await sample('payd', p.url, get((id) => `/api/v1/intents/${id}`, ids, d.headers), p.pid),
};
await p.stop();
await ceiling.close();
d.close();

/** µs per request by a key of each stack (a stack with no key is left out). */
const tally = (m: { stacks: string[][]; requests: number }, key: (s: string[]) => string | undefined) => {
  const us = new Map<string, number>();
  for (const s of m.stacks) {
    const k = key(s);
    if (k !== undefined) us.set(k, (us.get(k) ?? 0) + 1e6 / HZ / m.requests);
  }
  return us;
};
const show = (title: string, key: (s: string[]) => string | undefined, top: number) => {
  const c = tally(measured.ceiling, key);
  const q = tally(measured.payd, key);
  const keys = [...new Set([...c.keys(), ...q.keys()])].sort((a, b) => (q.get(b) ?? 0) - (c.get(b) ?? 0) - ((q.get(a) ?? 0) - (c.get(a) ?? 0)));
  console.log(`\n${title} (µs per request: payd, ceiling, difference)`);
  for (const k of keys.slice(0, top)) console.log(`${(q.get(k) ?? 0).toFixed(2).padStart(7)} ${(c.get(k) ?? 0).toFixed(2).padStart(7)} ${((q.get(k) ?? 0) - (c.get(k) ?? 0)).toFixed(2).padStart(7)}  ${k.slice(0, 110)}`);
};
for (const [name, m] of Object.entries(measured)) console.log(`${name}: ${m.requests} requests, ${((m.stacks.length * 1e6) / HZ / m.requests).toFixed(1)} µs of CPU per request`);
const where = (s: string[]) => (s.includes('do_syscall_64') ? 'kernel (system calls)' : s[0]!.startsWith('JS:') ? 'JavaScript (JIT code)' : s.some((f) => f.startsWith('sqlite3') || f.startsWith('Statement::')) ? 'better-sqlite3' : 'Node and V8 native (builtins, GC, HTTP parser)');
show('by kind', where, 4);
show('system calls', (s) => {
  const i = s.indexOf('do_syscall_64');
  return i < 0 ? undefined : s.slice(i + 1).find((f) => !f.startsWith('entry_SYSCALL'));
}, 6);
show('leaf symbols, largest differences first', (s) => s[0]!.replace(/file:\/\/\S+\//, ''), 25);
process.exit(0);

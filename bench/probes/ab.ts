// Ad-hoc: the API figures only, quickly (not part of npm run bench): the bench's ceiling (the
// durable one-INSERT server, bench/lib/servers/durable.ts) and one or more `payd serve`
// variants (every method configured, as in the bench), interleaved rounds,
// throughput and the server's CPU time per request (the figure that holds on a shared
// machine). For iterating on the hot path before a full bench run.
// Usage: node --import tsx bench/probes/ab.ts [create|fetch] [rounds] [seconds]
//   AB_VARIANTS='A=1;B=1' one payd per ;-separated env assignment list (default: one plain payd);
//   BIN=<path> in a variant runs another checkout's bin/payd (a baseline build); NODE=--a,--b its node flags
//   AB_METHODS=UPI,SOL the methods configured (default every one; a baseline build knows only its own);
//   AB_NODE='--flag …' extra node flags; AB_NOBUILD=1 runs dist/ as it is; AB_PIN=1 pins servers and load to separate cores;
//   AB_DIR=/dev/shm puts every database there (tmpfs: fsync costs nothing, the request path is all that differs).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon, { type Request, type Result } from 'autocannon';
import { startChild } from '../lib/child.ts';
import { cpuUsOf as cpuUs, ensureBuild, preparePaydDir, startServe, type PaydDir, type PaydProcess } from '../lib/payd-process.ts';
import type { DurableServerData } from '../lib/servers/durable.ts';

const [what = 'fetch', roundsArg = '3', secondsArg = '4'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const seconds = Number(secondsArg);
if (!process.env.AB_NOBUILD) ensureBuild(console.error);
const variants = (process.env.AB_VARIANTS ?? '').split(';').map((v) => Object.fromEntries(v.split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])));
const dbDir = process.env.AB_DIR;
const ceilingDir = dbDir ? mkdtempSync(join(dbDir, 'payd-ab-')) : null;
const ceiling = await startChild<DurableServerData>('durable', ['300', ...(ceilingDir ? [join(ceilingDir, 'durable.sqlite')] : [])]);
let n = 0;
const tag = Date.now().toString(36);
// The bench's requests: amounts with paise spread over 1.00–99,000.00 (bench/sections/api.ts).
const body = () => JSON.stringify({ amount: (100 + ((n * 7_919_777) % 9_899_901)) / 100, currency: 'UPI', order_id: `${tag}-${n++}` });
const targets: Array<{ name: string; d: PaydDir; p: PaydProcess; ids: string[] }> = [];
for (const env of variants) {
  const { BIN: bin, NODE: node, ...rest } = env;
  const d = preparePaydDir({ bin, methods: process.env.AB_METHODS?.split(','), parent: dbDir });
  const p = await startServe(d, { env: rest, bin, execArgv: [...(process.env.AB_NODE?.split(' ') ?? []), ...(node?.split(',') ?? [])].filter(Boolean) });
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) {
    const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers: { ...d.headers, 'content-type': 'application/json' }, body: body() });
    ids.push(((await r.json()) as { intent_id: string }).intent_id);
  }
  targets.push({ name: Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ') || 'payd', d, p, ids });
}
// AB_PIN=1: every server on CPU 1, this process (the load) on CPU 0, so a server's GC threads
// never take the load generator's core.
if (process.env.AB_PIN) {
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)]);
  for (const pid of [ceiling.proc.pid!, ...targets.map((t) => t.p.pid)]) execFileSync('taskset', ['-a', '-p', '-c', '1', String(pid)]);
}
const create = (path: string, h: Record<string, string>): Request => ({ method: 'POST', path, headers: { ...h, 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: body() }) });
const get = (pathOf: (id: string) => string, list: string[], h: Record<string, string>): Request => {
  let i = 0;
  return { method: 'GET', path: pathOf(list[0]), headers: h, setupRequest: (r) => ({ ...r, path: pathOf(list[i++ % list.length]) }) };
};
const run = async (url: string, req: Request, pid: number): Promise<{ rps: number; cpu: number; load: number; p99: number; bad: number }> => {
  await autocannon({ url, connections: 10, duration: 1, requests: [req] });
  const c0 = cpuUs(pid);
  const l0 = process.cpuUsage();
  const r: Result = await autocannon({ url, connections: 10, duration: seconds, requests: [req] });
  const l = process.cpuUsage(l0);
  return { rps: r.requests.average, load: (l.user + l.system) / r.requests.total, cpu: (cpuUs(pid) - c0) / r.requests.total, p99: r.latency.p99, bad: r.non2xx + r.errors };
};
const fmt = (x: { rps: number; cpu: number; load: number; p99: number; bad: number }) => `${Math.round(x.rps)} req/s p99 ${x.p99} ms ${x.cpu.toFixed(1)} µs/req (load generator ${x.load.toFixed(1)})${x.bad ? ` FAILED ${x.bad}` : ''}`;
const sums = new Map<string, { ratio: number[]; cpu: number[] }>();
for (let i = 0; i < rounds; i++) {
  const c = what === 'create' ? await run(ceiling.data.url, create('/items', {}), ceiling.proc.pid!) : await run(ceiling.data.url, get((id) => `/items/${id}`, ceiling.data.itemIds, {}), ceiling.proc.pid!);
  const line = [`${what} ${i + 1}: ceiling ${fmt(c)}`];
  // Rotated each round: whichever variant runs right after the ceiling tends to look better.
  for (const t of targets.map((_, k) => targets[(k + i) % targets.length]!)) {
    const q = what === 'create' ? await run(t.p.url, create('/api/v1/intents/create-payment', t.d.headers), t.p.pid) : await run(t.p.url, get((id) => `/api/v1/intents/${id}`, t.ids, t.d.headers), t.p.pid);
    line.push(`[${t.name}] ${fmt(q)} ratio ${(q.rps / c.rps).toFixed(2)} cpu-ratio ${(c.cpu / q.cpu).toFixed(2)}`);
    const s = sums.get(t.name) ?? { ratio: [], cpu: [] };
    s.ratio.push(q.rps / c.rps);
    s.cpu.push(q.cpu);
    sums.set(t.name, s);
  }
  console.log(line.join('\n   '));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, s] of sums) console.log(`${name}: median ratio ${median(s.ratio).toFixed(2)}, median ${median(s.cpu).toFixed(1)} µs/req, least ${Math.min(...s.cpu).toFixed(1)} µs/req`);
for (const t of targets) await t.p.stop();
await ceiling.close();
if (ceilingDir) rmSync(ceilingDir, { recursive: true, force: true });
for (const t of targets) t.d.close();
process.exit(0);

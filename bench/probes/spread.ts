// Ad-hoc: how much identical `payd serve` processes differ, and what changes it. For each of N
// turns, one fresh process per variant (order rotated each turn, so a slow spell of the machine
// hits every variant alike), each: RSS after start, 300 creates, then rounds of fetch (or create)
// load; prints each process's req/s, server CPU per request, the load generator's CPU per request
// and the machine's steal share (the host running other guests), then min/median/max per variant.
// Usage: node --import tsx bench/probes/spread.ts [fetch|create] [turns] [rounds] [seconds]
//   SPREAD_VARIANTS='methods=none;methods=UPI node=--max-semi-space-size=2,--single-threaded-gc;bin=/path/bin/payd;pin=1'
//   (default: one plain variant). methods: all (default), none, documented (the docs' public
//   upstreams) or a comma list; node: payd's node flags; bin: another checkout's bin/payd; pin=1:
//   payd on CPU 1, the load on CPU 0; log=pipe: payd's log to a pipe this process reads (default a file);
//   first=errors: 3,000 failing requests (no or wrong credentials, unknown route, malformed body) before any other;
//   creates=N: N creates (10 connections) before the load, as the bench's create figure comes before its fetch.
//   SPREAD_NOBUILD=1 runs dist/ as it is.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import autocannon, { type Request } from 'autocannon';
import { cpuUsOf, ensureBuild, machineTicks, preparePaydDir, startServe, stealShare } from '../lib/payd-process.ts';

const [what = 'fetch', turnsArg = '5', roundsArg = '3', secondsArg = '3'] = process.argv.slice(2);
if (!process.env.SPREAD_NOBUILD) ensureBuild(console.error);
const variants = (process.env.SPREAD_VARIANTS ?? '').split(';').map((v) => ({ name: v.trim() || 'payd', ...Object.fromEntries(v.split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])) }) as { name: string; methods?: string; node?: string; bin?: string; pin?: string; log?: string; first?: string; creates?: string });
let n = 0;
const tag = Date.now().toString(36);
const body = () => JSON.stringify({ amount: (100 + ((n * 7_919_777) % 9_899_901)) / 100, currency: 'UPI', order_id: `${tag}-${n++}` });
const methodsOf = (v: string | undefined) => (v === undefined || v === 'all' ? 'all' : v === 'none' || v === 'documented' ? v : v.split(','));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows = new Map<string, Array<{ rps: number; cpu: number; steal: number }>>();

async function one(variant: (typeof variants)[number]) {
  const d = preparePaydDir({ methods: methodsOf(variant.methods) });
  const p = await startServe(d, { execArgv: variant.node?.split(','), bin: variant.bin, logToPipe: variant.log === 'pipe' });
  if (variant.pin) {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)]);
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(p.pid)]);
  }
  await new Promise((r) => setTimeout(r, 2000));
  const rss = p.rssMb();
  const threads = readdirSync(`/proc/${p.pid}/task`).length;
  if (variant.first === 'errors') {
    // Whether the shapes V8 sees first (error paths) leave the process slower for good.
    const failing: Request[] = [
      { method: 'GET', path: '/api/v1/intents/00000000-0000-4000-8000-000000000000', headers: { ...d.headers, 'x-client-secret': 'sk_live_wrong' } },
      { method: 'GET', path: '/api/v1/intents/00000000-0000-4000-8000-000000000000' },
      { method: 'GET', path: '/api/v1/no-such-route', headers: d.headers },
      { method: 'POST', path: '/api/v1/intents/create-payment', headers: { ...d.headers, 'content-type': 'application/json' }, body: '{"amount":' },
    ];
    await autocannon({ url: p.url, connections: 10, amount: 3000, requests: failing });
  }
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) {
    const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers: { ...d.headers, 'content-type': 'application/json' }, body: body() });
    ids.push(((await r.json()) as { intent_id: string }).intent_id);
  }
  const create: Request = { method: 'POST', path: '/api/v1/intents/create-payment', headers: { ...d.headers, 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: body() }) };
  if (variant.creates) await autocannon({ url: p.url, connections: 10, amount: Number(variant.creates), requests: [create] });
  let i = 0;
  const req: Request =
    what === 'create'
      ? create
      : { method: 'GET', path: `/api/v1/intents/${ids[0]}`, headers: d.headers, setupRequest: (r) => ({ ...r, path: `/api/v1/intents/${ids[i++ % ids.length]}` }) };
  await autocannon({ url: p.url, connections: 10, duration: 1, requests: [req] });
  const rounds: Array<{ rps: number; cpu: number; load: number; steal: number }> = [];
  for (let r = 0; r < Number(roundsArg); r++) {
    const c0 = cpuUsOf(p.pid);
    const l0 = cpuUsOf(process.pid);
    const m0 = machineTicks();
    const res = await autocannon({ url: p.url, connections: 10, duration: Number(secondsArg), requests: [req] });
    const total = Math.max(1, res.requests.total);
    rounds.push({ rps: res.requests.average, cpu: (cpuUsOf(p.pid) - c0) / total, load: (cpuUsOf(process.pid) - l0) / total, steal: stealShare(m0, machineTicks()) });
  }
  if (variant.pin) execFileSync('taskset', ['-a', '-p', '-c', '0-1', String(process.pid)]);
  const row = { rps: median(rounds.map((x) => x.rps)), cpu: median(rounds.map((x) => x.cpu)), steal: median(rounds.map((x) => x.steal)) };
  rows.set(variant.name, [...(rows.get(variant.name) ?? []), row]);
  console.log(`[${variant.name}] rss ${rss.toFixed(0)} MB, ${threads} threads, start ${p.startMs.toFixed(0)} ms; ${rounds.map((x) => `${Math.round(x.rps)}/s ${x.cpu.toFixed(1)}µs (load ${x.load.toFixed(1)}µs, steal ${(100 * x.steal).toFixed(1)}%)`).join(' | ')}`);
  await p.stop();
  d.close();
}

for (let k = 0; k < Number(turnsArg); k++) {
  for (let j = 0; j < variants.length; j++) await one(variants[(j + k) % variants.length]!);
}
for (const [name, rs] of rows) {
  const rps = rs.map((r) => r.rps);
  const cpu = rs.map((r) => r.cpu);
  console.log(`${what} [${name}]: req/s min ${Math.round(Math.min(...rps))} median ${Math.round(median(rps))} max ${Math.round(Math.max(...rps))} (max/min ${(Math.max(...rps) / Math.min(...rps)).toFixed(2)}); µs/req min ${Math.min(...cpu).toFixed(1)} median ${median(cpu).toFixed(1)} max ${Math.max(...cpu).toFixed(1)} (max/min ${(Math.max(...cpu) / Math.min(...cpu)).toFixed(2)}); steal ${rs.map((r) => (100 * r.steal).toFixed(1)).join(', ')} %`);
}
process.exit(0);

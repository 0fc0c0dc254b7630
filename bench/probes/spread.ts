// Ad-hoc: how much identical `payd serve` processes differ. Starts N fresh processes one after
// another (the bench's config, every method), each: RSS after start, 300 creates, then rounds of
// fetch (or create) load; prints each process's req/s and server CPU per request, then min/median/max.
// Usage: node --import tsx bench/probes/spread.ts [fetch|create] [processes] [rounds] [seconds]
//   SPREAD_NODE='--flag …' node flags for payd; SPREAD_NOBUILD=1 runs dist/ as it is; SPREAD_PIN=1 pins payd to CPU 1, load to CPU 0;
//   SPREAD_BIN=<path> another checkout's bin/payd (a baseline build); SPREAD_METHODS=none no payment method (no source loops), =documented every method with the docs' public upstreams.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import autocannon, { type Request } from 'autocannon';
import { cpuUsOf, ensureBuild, preparePaydDir, startServe } from '../lib/payd-process.ts';

const [what = 'fetch', procsArg = '5', roundsArg = '3', secondsArg = '3'] = process.argv.slice(2);
if (!process.env.SPREAD_NOBUILD) ensureBuild(console.error);
let n = 0;
const tag = Date.now().toString(36);
const body = () => JSON.stringify({ amount: (100 + ((n * 7_919_777) % 9_899_901)) / 100, currency: 'UPI', order_id: `${tag}-${n++}` });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: Array<{ rps: number; cpu: number }> = [];
if (process.env.SPREAD_PIN) execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)]);
for (let k = 0; k < Number(procsArg); k++) {
  const d = preparePaydDir({ methods: (process.env.SPREAD_METHODS as 'none' | 'documented' | undefined) ?? 'all' });
  const execArgv = process.env.SPREAD_NODE?.split(' ').filter(Boolean);
  const p = await startServe(d, { execArgv, bin: process.env.SPREAD_BIN });
  if (process.env.SPREAD_PIN) execFileSync('taskset', ['-a', '-p', '-c', '1', String(p.pid)]);
  await new Promise((r) => setTimeout(r, 2000));
  const rss = p.rssMb();
  const threads = readdirSync(`/proc/${p.pid}/task`).length;
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) {
    const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers: { ...d.headers, 'content-type': 'application/json' }, body: body() });
    ids.push(((await r.json()) as { intent_id: string }).intent_id);
  }
  let i = 0;
  const req: Request =
    what === 'create'
      ? { method: 'POST', path: '/api/v1/intents/create-payment', headers: { ...d.headers, 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: body() }) }
      : { method: 'GET', path: `/api/v1/intents/${ids[0]}`, headers: d.headers, setupRequest: (r) => ({ ...r, path: `/api/v1/intents/${ids[i++ % ids.length]}` }) };
  await autocannon({ url: p.url, connections: 10, duration: 1, requests: [req] });
  const rounds: Array<{ rps: number; cpu: number }> = [];
  for (let r = 0; r < Number(roundsArg); r++) {
    const c0 = cpuUsOf(p.pid);
    const res = await autocannon({ url: p.url, connections: 10, duration: Number(secondsArg), requests: [req] });
    rounds.push({ rps: res.requests.average, cpu: (cpuUsOf(p.pid) - c0) / res.requests.total });
  }
  const row = { rps: median(rounds.map((x) => x.rps)), cpu: median(rounds.map((x) => x.cpu)) };
  rows.push(row);
  console.log(`process ${k + 1}: rss ${rss.toFixed(0)} MB, ${threads} threads, start ${p.startMs.toFixed(0)} ms; ${rounds.map((x) => `${Math.round(x.rps)}/s ${x.cpu.toFixed(1)}µs`).join(' | ')}`);
  await p.stop();
  d.close();
}
const rps = rows.map((r) => r.rps);
const cpu = rows.map((r) => r.cpu);
console.log(`${what}: req/s min ${Math.round(Math.min(...rps))} median ${Math.round(median(rps))} max ${Math.round(Math.max(...rps))} (max/min ${(Math.max(...rps) / Math.min(...rps)).toFixed(2)}); µs/req min ${Math.min(...cpu).toFixed(1)} median ${median(cpu).toFixed(1)} max ${Math.max(...cpu).toFixed(1)}`);
process.exit(0);

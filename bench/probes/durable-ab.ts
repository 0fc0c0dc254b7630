// Ad-hoc: create throughput of `payd serve` against the durable one-INSERT
// server (bench/lib/servers/durable.ts) and the Kysely ceiling, with either request mix:
// MIX=issue (default: amounts 1.00–99,000.00 with paise, what a shop sends) or MIX=bench (the old
// whole rupees 1…90,000 in order). Processes live for the whole run, so every database grows
// round after round, as in production. Interleaved, rotated rounds; server CPU per request.
// Usage: node --import tsx bench/probes/durable-ab.ts [rounds] [seconds]   (AB_NOBUILD=1: dist/ as is)
import { readFileSync } from 'node:fs';
import autocannon, { type Request } from 'autocannon';
import { startChild } from '../lib/child.ts';
import { cpuUsOf as cpuUs, ensureBuild, preparePaydDir, startServe } from '../lib/payd-process.ts';
import type { DurableServerData } from '../lib/servers/durable.ts';
import type { CeilingServerData } from '../lib/servers/ceiling.ts';

const [roundsArg = '4', secondsArg = '5'] = process.argv.slice(2);
const mix = process.env.MIX ?? 'issue';
if (!process.env.AB_NOBUILD) ensureBuild(console.error);
let n = 0;
const tag = Date.now().toString(36);
// A deterministic spread (Weyl sequence) over 100 … 9,900,000 paise.
const amount = (k: number) => (mix === 'bench' ? 1 + (k % 90_000) : (100 + ((k * 7_919_777) % 9_899_901)) / 100);
const body = () => JSON.stringify({ amount: amount(n), currency: 'UPI', order_id: `${tag}-${n++}` });
const create = (path: string, h: Record<string, string>): Request => ({ method: 'POST', path, headers: { ...h, 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: body() }) });

const durable = await startChild<DurableServerData>('durable', ['0']);
const kysely = await startChild<CeilingServerData>('ceiling', ['0']);
const d = preparePaydDir();
const p = await startServe(d);
const targets = [
  { name: 'durable', url: durable.data.url, pid: durable.proc.pid!, req: () => create('/items', {}) },
  { name: 'kysely-ceiling', url: kysely.data.url, pid: kysely.proc.pid!, req: () => create('/items', {}) },
  { name: 'payd', url: p.url, pid: p.pid, req: () => create('/api/v1/intents/create-payment', d.headers) },
];
const res = new Map<string, { rps: number[]; cpu: number[] }>();
for (let i = 0; i < Number(roundsArg); i++) {
  const line: string[] = [];
  for (const t of targets.map((_, k) => targets[(k + i) % targets.length]!)) {
    await autocannon({ url: t.url, connections: 10, duration: 1, requests: [t.req()] });
    const c0 = cpuUs(t.pid);
    const r = await autocannon({ url: t.url, connections: 10, duration: Number(secondsArg), requests: [t.req()] });
    const cpu = (cpuUs(t.pid) - c0) / r.requests.total;
    const s = res.get(t.name) ?? { rps: [], cpu: [] };
    s.rps.push(r.requests.average);
    s.cpu.push(cpu);
    res.set(t.name, s);
    line.push(`${t.name} ${Math.round(r.requests.average)}/s ${cpu.toFixed(0)} µs/req${r.non2xx + r.errors ? ` FAILED ${r.non2xx + r.errors}` : ''}`);
  }
  console.log(`round ${i + 1}: ${line.join(' | ')}`);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const base = res.get('durable')!;
for (const [name, s] of res) console.log(`${name}: ${Math.round(mean(s.rps))}/s (${(mean(s.rps) / mean(base.rps)).toFixed(2)}× durable), ${mean(s.cpu).toFixed(0)} µs/req`);
console.log(`mix ${mix}; ${n} creates; ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
await p.stop();
await durable.close();
await kysely.close();
d.close();
process.exit(0);

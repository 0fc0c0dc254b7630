// Ad-hoc (not part of npm run bench): server CPU µs per fetch, averaged over several `payd serve`
// processes per variant, because identical processes differ (one in five or so ran ~25 % slower
// for its whole life). Variants interleave, rotated each round.
// Usage: LIST='label!node flags!ENV=1 BIN=/other/bin/payd;…' [R=rounds] [S=seconds] node --import tsx bench/probes/fetch-cpu.ts
//   one process per entry; entries with the same label are averaged. Run `npm run build` first.
import autocannon from 'autocannon';
import { cpuUsOf as cpuUs, preparePaydDir, startServe, sysUsOf as sysUs } from '../lib/payd-process.ts';
const LIST = (process.env.LIST ?? 'a;a;a').split(';').filter(Boolean);
const ts: any[] = [];
for (const item of LIST) {
  const [label, flags = '', envs = ''] = item.split('!');
  const d = preparePaydDir();
  const execArgv = flags.split(' ').filter(Boolean);
  const env = Object.fromEntries(envs.split(' ').filter(Boolean).map((kv) => kv.split('=')));
  const p = await startServe(d, { execArgv, env, bin: env.BIN });
  const headers = { ...d.headers, 'content-type': 'application/json' };
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) {
    const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 1 + i, currency: 'UPI', order_id: `g-${i}` }) });
    if (r.status !== 200) throw new Error(`create failed ${r.status}`);
    ids.push(((await r.json()) as { intent_id: string }).intent_id);
  }
  let n = 0;
  const req = { method: 'GET', path: `/api/v1/intents/${ids[0]}`, headers: d.headers, setupRequest: (r: any) => ({ ...r, path: `/api/v1/intents/${ids[n++ % ids.length]}` }) } as any;
  ts.push({ label, d, p, req, cpu: [] as number[], rps: [] as number[] });
}
const R = Number(process.env.R ?? 3);
for (let r = 0; r < R; r++) for (const t of ts.map((_, j) => ts[(j + r) % ts.length])) {
  await autocannon({ url: t.p.url, connections: 10, duration: 1, requests: [t.req] });
  const c0 = cpuUs(t.p.pid);
  const s0 = sysUs(t.p.pid);
  const res = await autocannon({ url: t.p.url, connections: 10, duration: Number(process.env.S ?? 2), requests: [t.req] });
  if (res.non2xx || res.errors) throw new Error(`fetch failed: ${res.non2xx} non-2xx, ${res.errors} errors`);
  t.cpu.push((cpuUs(t.p.pid) - c0) / res.requests.total);
  (t.sys ??= []).push((sysUs(t.p.pid) - s0) / res.requests.total);
  t.rps.push(res.requests.average);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const byLabel = new Map<string, number[]>();
for (const t of ts) {
  console.log(`${t.label} pid ${t.p.pid}: ${t.cpu.map((x: number) => x.toFixed(1)).join(' ')} µs/req (sys ${t.sys.map((x: number) => x.toFixed(1)).join(' ')}); ${t.rps.map((x: number) => Math.round(x)).join(' ')} req/s`);
  byLabel.set(t.label, [...(byLabel.get(t.label) ?? []), ...t.cpu]);
}
for (const [label, xs] of byLabel) console.log(`${label}: mean ${mean(xs).toFixed(1)} µs/req over ${xs.length} runs`);
for (const t of ts) { await t.p.stop(); t.d.close(); }
process.exit(0);

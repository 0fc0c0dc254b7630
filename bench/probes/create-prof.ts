// Ad-hoc: CPU profiles of `payd serve` and the durable one-INSERT server under
// the same create load (the bench's mix: amounts 1.00–99,000.00 with paise, a fresh order_id each),
// one after the other, 10 connections. Read each with bench/lib/profile.ts.
// Usage: node --import tsx bench/probes/create-prof.ts <outdir> [seconds]   (TMPDIR=/dev/shm: fsync free)
import autocannon, { type Request } from 'autocannon';
import { startChild } from '../lib/child.ts';
import { ensureBuild, preparePaydDir, startServe } from '../lib/payd-process.ts';
import type { DurableServerData } from '../lib/servers/durable.ts';

const [out, secs = '10'] = process.argv.slice(2);
if (!out) throw new Error('usage: create-prof.ts <outdir> [seconds]');
if (!process.env.AB_NOBUILD) ensureBuild(console.error);
let n = 0;
const tag = Date.now().toString(36);
const body = () => JSON.stringify({ amount: (100 + ((n * 7_919_777) % 9_899_901)) / 100, currency: 'UPI', order_id: `${tag}-${n++}` });
const create = (path: string, h: Record<string, string>): Request => ({ method: 'POST', path, headers: { ...h, 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: body() }) });
const durable = await startChild<DurableServerData>('durable', ['0'], { execArgv: ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${out}/durable`] });
const d = preparePaydDir();
const p = await startServe(d, { execArgv: ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${out}/payd`] });
const c = await autocannon({ url: durable.data.url, connections: 10, duration: Number(secs), requests: [create('/items', {})] });
const q = await autocannon({ url: p.url, connections: 10, duration: Number(secs), requests: [create('/api/v1/intents/create-payment', d.headers)] });
console.log(`durable ${c.requests.total} creates (${c.non2xx} non-2xx), payd ${q.requests.total} creates (${q.non2xx} non-2xx)`);
await p.stop();
await durable.close();
d.close();
process.exit(0);

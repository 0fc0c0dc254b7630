// Ad-hoc: memory of `payd serve` (process.memoryUsage and V8 heap spaces, via bench/probes/mem-dump.mjs
// loaded with --import) after start and after N creates. Not part of npm run bench.
// Usage: node --import tsx bench/probes/mem-probe.ts <creates> [methods all|none|UPI,SOL,…] [node flags…]
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { fileURLToPath } from 'node:url';
import { preparePaydDir, startServe } from '../lib/payd-process.ts';

const [count, methods = 'all', ...flags] = process.argv.slice(2);
const dump = fileURLToPath(new URL('./mem-dump.mjs', import.meta.url));
const d = preparePaydDir({ methods: methods === 'all' || methods === 'none' ? methods : methods!.split(',') });
const p = await startServe(d, { execArgv: ['--import', dump, ...flags] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
await sleep(2000);
process.kill(p.pid, 'SIGUSR2');
await sleep(300);
console.log('after start, VmRSS', Math.round(p.rssMb()));
let n = 0;
const tag = Date.now().toString(36);
const headers = { ...d.headers, 'content-type': 'application/json' };
const res = await autocannon({ url: p.url, connections: 50, amount: Number(count), requests: [{ method: 'POST', path: '/api/v1/intents/create-payment', headers, setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ amount: 1 + (n % 90000), currency: 'UPI', order_id: `${tag}-${n++}` }) }) } as any] });
await sleep(1000);
process.kill(p.pid, 'SIGUSR2');
await sleep(300);
console.log(`after ${count} creates (${Math.round(res.requests.average)} req/s, ${res.non2xx} non-2xx), VmRSS`, Math.round(p.rssMb()));
console.log(readFileSync(`/tmp/payd-mem-${p.pid}.txt`, 'utf8'));
await p.stop();
d.close();

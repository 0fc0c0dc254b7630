// Ad-hoc: CPU profile of one `payd serve` under create or fetch load (not part of npm run bench).
// Usage: node --import tsx bench/probes/quick-profile.ts create|fetch <outdir>
import autocannon from 'autocannon';
import { ensureBuild, preparePaydDir, startServe } from '../lib/payd-process.ts';

const [what, out] = process.argv.slice(2);
ensureBuild(console.error);
const d = preparePaydDir();
const p = await startServe(d, { execArgv: ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${out}`] });
let n = 0;
const tag = Date.now().toString(36);
const headers = { ...d.headers, 'content-type': 'application/json' };
const ids: string[] = [];
for (let i = 0; i < 200; i++) {
  const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 1 + n, currency: 'UPI', order_id: `${tag}-${n++}` }) });
  ids.push(((await r.json()) as { intent_id: string }).intent_id);
}
const req =
  what === 'create'
    ? { method: 'POST', path: '/api/v1/intents/create-payment', headers, setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ amount: 1 + (n % 90000), currency: 'UPI', order_id: `${tag}-${n++}` }) }) }
    : { method: 'GET', path: `/api/v1/intents/${ids[0]}`, headers: d.headers, setupRequest: (r: any) => ({ ...r, path: `/api/v1/intents/${ids[n++ % ids.length]}` }) };
const res = await autocannon({ url: p.url, connections: 10, duration: 8, requests: [req as any] });
console.log(what, Math.round(res.requests.average), 'req/s', 'p99', res.latency.p99, 'non2xx', res.non2xx, 'errors', res.errors);
await p.stop();
d.close();

// Ad-hoc: CPU profiles of the durable server's prepared SELECT and of payd serve under the same fetch load (not part of npm run bench).
// Usage: node --import tsx bench/probes/prof-pair.ts <outdir> [seconds]
import autocannon, { type Request } from 'autocannon';
import { startChild } from '../lib/child.ts';
import { ensureBuild, preparePaydDir, startServe } from '../lib/payd-process.ts';
import type { DurableServerData } from '../lib/servers/durable.ts';

const [out, secs = '8'] = process.argv.slice(2);
ensureBuild(console.error);
const d = preparePaydDir();
const ceiling = await startChild<DurableServerData>('durable', ['300'], { execArgv: ['--cpu-prof', `--cpu-prof-dir=${out}/ceiling`] });
const p = await startServe(d, { execArgv: ['--cpu-prof', `--cpu-prof-dir=${out}/payd`] });
const headers = { ...d.headers, 'content-type': 'application/json' };
const ids: string[] = [];
for (let i = 0; i < 300; i++) {
  const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 1 + i, currency: 'UPI', order_id: `o-${Date.now()}-${i}` }) });
  ids.push(((await r.json()) as { intent_id: string }).intent_id);
}
const get = (pathOf: (id: string) => string, list: string[], h: Record<string, string>): Request => {
  let i = 0;
  return { method: 'GET', path: pathOf(list[0]), headers: h, setupRequest: (r) => ({ ...r, path: pathOf(list[i++ % list.length]) }) };
};
const c = await autocannon({ url: ceiling.data.url, connections: 10, duration: Number(secs), requests: [get((id) => `/items/${id}`, ceiling.data.itemIds, {})] });
const q = await autocannon({ url: p.url, connections: 10, duration: Number(secs), requests: [get((id) => `/api/v1/intents/${id}`, ids, d.headers)] });
console.log(`ceiling ${c.requests.total} requests, payd ${q.requests.total} requests`);
await p.stop();
await ceiling.close();
d.close();
process.exit(0);

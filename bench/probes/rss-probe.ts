// Ad-hoc: RSS of `payd serve` after start and after N creates, with extra node flags, and the size of
// its database's write-ahead log then and after a clean stop (not part of npm run bench).
// Usage: node --import tsx bench/probes/rss-probe.ts <creates> [node flags…]
import { existsSync, statSync } from 'node:fs';
import autocannon from 'autocannon';
import { preparePaydDir, startServe } from '../lib/payd-process.ts';

const [count, ...flags] = process.argv.slice(2);
const d = preparePaydDir();
const p = await startServe(d, { execArgv: flags });
await new Promise((r) => setTimeout(r, 2000));
const start = p.rssMb();
let n = 0;
const tag = Date.now().toString(36);
const headers = { ...d.headers, 'content-type': 'application/json' };
const res = await autocannon({ url: p.url, connections: 50, amount: Number(count), requests: [{ method: 'POST', path: '/api/v1/intents/create-payment', headers, setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ amount: 1 + (n % 90000), currency: 'UPI', order_id: `${tag}-${n++}` }) }) } as any] });
await new Promise((r) => setTimeout(r, 1000));
const wal = () => (existsSync(`${d.dbFile}-wal`) ? `${(statSync(`${d.dbFile}-wal`).size / 1e6).toFixed(1)} MB` : 'none');
console.log(flags.join(' ') || '(defaults)', 'start', Math.round(start), 'MB; after', count, 'creates', Math.round(p.rssMb()), 'MB;', Math.round(res.requests.average), 'req/s; WAL', wal());
await p.stop();
console.log('WAL after a clean stop:', wal());
d.close();

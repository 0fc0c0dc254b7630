// Ad-hoc: resident memory of `payd serve` 2 s after start, by mapping (node binary, anonymous/V8 heap, malloc, libraries).
// Usage: node --import tsx bench/probes/smaps-probe.ts [all|none|UPI,TRON,…] [node flags…]
import { readFileSync } from 'node:fs';
import { preparePaydDir, startServe } from '../lib/payd-process.ts';
const methods = process.argv[2] ?? 'all';
const d = preparePaydDir({ methods: methods === 'all' || methods === 'none' ? methods : methods.split(',') as any });
const p = await startServe(d, { execArgv: process.argv.slice(3) });
await new Promise((r) => setTimeout(r, 2000));
const txt = readFileSync(`/proc/${p.pid}/smaps`, 'utf8');
const agg = new Map<string, number>();
let name = '';
for (const line of txt.split('\n')) {
  const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
  if (m) { name = m[1] || '[anon]'; continue; }
  const r = /^Rss:\s+(\d+) kB/.exec(line);
  if (r) agg.set(name, (agg.get(name) ?? 0) + Number(r[1]));
}
const rows = [...agg].sort((a, b) => b[1] - a[1]).slice(0, 15);
for (const [k, v] of rows) console.log((v / 1024).toFixed(1).padStart(7), k);
console.log('total', ([...agg.values()].reduce((a, b) => a + b, 0) / 1024).toFixed(1));
await p.stop(); d.close();

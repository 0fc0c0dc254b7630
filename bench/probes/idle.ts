// Ad-hoc: what an idle `payd serve` does: CPU time, threads and RSS over its first seconds, with
// the bench's closed-port upstreams or the docs' public ones (IDLE_METHODS=documented).
// Usage: node --import tsx bench/probes/idle.ts [seconds]
import { readdirSync } from 'node:fs';
import { cpuUsOf, preparePaydDir, startServe } from '../lib/payd-process.ts';

const seconds = Number(process.argv[2] ?? 20);
const d = preparePaydDir({ methods: (process.env.IDLE_METHODS as 'documented' | undefined) ?? 'all' });
const p = await startServe(d);
const c0 = cpuUsOf(p.pid);
for (let s = 1; s <= seconds; s++) {
  await new Promise((r) => setTimeout(r, 1000));
  if (s === 2 || s % 5 === 0) console.log(`${s} s: CPU ${((cpuUsOf(p.pid) - c0) / 1000).toFixed(0)} ms since listening, ${readdirSync(`/proc/${p.pid}/task`).length} threads, RSS ${p.rssMb().toFixed(0)} MB`);
}
await p.stop();
d.close();
process.exit(0);

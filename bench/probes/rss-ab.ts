// Ad-hoc: RSS after start (2 s, 15 s) of `payd serve` through different bin scripts, interleaved.
// Usage: node --import tsx bench/probes/rss-ab.ts <methods> <bin>…
import { preparePaydDir, startServe } from '../lib/payd-process.ts';
const [methods, ...bins] = process.argv.slice(2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (let round = 0; round < 2; round++) for (const bin of bins) {
  const d = preparePaydDir({ methods: methods as any });
  const p = await startServe(d, { bin });
  await sleep(2000); const a = p.rssMb();
  await sleep(13000); const b = p.rssMb();
  console.log(bin.padEnd(24), 'start', p.startMs.toFixed(0), 'ms, RSS 2 s', a.toFixed(1), '15 s', b.toFixed(1));
  await p.stop(); d.close();
}

import { preparePaydDir, startServe } from './payd-process.ts';
const flags = process.argv.slice(2);
const d = preparePaydDir();
const p = await startServe(d, { execArgv: flags });
const t0 = performance.now();
const out: string[] = [];
for (const s of [1, 2, 3, 4, 6, 8, 12, 16, 20]) {
  await new Promise((r) => setTimeout(r, s * 1000 - (performance.now() - t0)));
  out.push(`${s}s:${Math.round(p.rssMb())}`);
}
console.log(flags.join(' ') || '(defaults)', out.join(' '));
await p.stop();
d.close();

// Issue 13: how fast the CLI answers as a fresh process (the compiled bin/payd): `--help`
// and `intents list` on a database with a few hundred intents. Median of several runs.
import { ensureBuild, preparePaydDir, timeCli } from './payd-process.ts';
import { percentile, round, type BenchContext, type SectionResult } from './report.ts';
import { seedIntents } from './seed.ts';
import { UPI_VPA } from './harness.ts';

const RUNS = 7;
const GOALS = { help: 300, list: 500 };

export async function cliSection(ctx: BenchContext): Promise<SectionResult> {
  ensureBuild(ctx.progress);
  const d = preparePaydDir();
  try {
    seedIntents(d.dbFile, { merchantId: d.clientId, receiver: UPI_VPA, count: 500, now: Date.now() });
    timeCli(['--help']); // warm the file cache once, as any second run would have it
    const help: number[] = [];
    const list: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      help.push(timeCli(['--help']));
      list.push(timeCli(['--config', d.configFile, 'intents', 'list']));
    }
    ctx.progress('cli: timed');
    const h = percentile(help, 50);
    const l = percentile(list, 50);
    return {
      title: 'CLI start-up (a fresh process each time)',
      rows: [
        { metric: 'payd --help', value: round(h, 0), unit: 'ms', note: `goal <= ${GOALS.help} ms; median of ${RUNS}, max ${round(Math.max(...help), 0)} ms` },
        { metric: 'payd intents list', value: round(l, 0), unit: 'ms', note: `goal <= ${GOALS.list} ms; median of ${RUNS}, max ${round(Math.max(...list), 0)} ms; all four methods configured, 500 intents` },
        { metric: 'CLI goals met', value: h <= GOALS.help && l <= GOALS.list },
      ],
      notes: ['wall time of `node bin/payd …` from spawn to exit, compiled dist/'],
    };
  } finally {
    d.close();
  }
}

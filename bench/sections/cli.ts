// How fast the CLI answers as a fresh process (the compiled bin/payd): `--help`
// and `intents list` on a database with a few hundred intents. Median of several runs.
import { ensureBuild, preparePaydDir, timeCli } from '../lib/payd-process.ts';
import { percentile, round, type BenchContext, type SectionResult } from '../lib/report.ts';
import { seedIntents } from '../lib/seed.ts';
import { UPI_VPA } from '../lib/harness.ts';

const RUNS = 7;
const GOALS = { help: 300, list: 500 };

export async function cliSection(ctx: BenchContext): Promise<SectionResult> {
  ensureBuild(ctx.progress);
  const d = preparePaydDir();
  try {
    seedIntents(d.dbFile, { merchantId: d.clientId, receiver: UPI_VPA, count: 500, now: Date.now() });
    timeCli(['--help']); // warm the file cache once, as any second run would have it
    const help: Array<{ wallMs: number; cpuMs: number }> = [];
    const list: Array<{ wallMs: number; cpuMs: number }> = [];
    for (let i = 0; i < RUNS; i++) {
      help.push(timeCli(['--help']));
      list.push(timeCli(['--config', d.configFile, 'intents', 'list']));
    }
    ctx.progress('cli: timed');
    const h = percentile(help.map((x) => x.wallMs), 50);
    const l = percentile(list.map((x) => x.wallMs), 50);
    const hCpu = percentile(help.map((x) => x.cpuMs), 50);
    const lCpu = percentile(list.map((x) => x.cpuMs), 50);
    return {
      title: 'CLI start-up (a fresh process each time)',
      rows: [
        { metric: 'payd --help: wall', value: round(h, 0), unit: 'ms', note: `goal <= ${GOALS.help} ms; median of ${RUNS}` },
        { metric: 'payd --help: CPU', value: round(hCpu, 0), unit: 'ms', note: 'user + system, median; what the wall time is on an idle machine' },
        { metric: 'payd intents list: wall', value: round(l, 0), unit: 'ms', note: `goal <= ${GOALS.list} ms; median of ${RUNS}; all four methods configured, 500 intents` },
        { metric: 'payd intents list: CPU', value: round(lCpu, 0), unit: 'ms', note: 'user + system, median' },
        { metric: 'CLI goals met (wall)', value: h <= GOALS.help && l <= GOALS.list },
        { metric: 'CLI goals met (CPU)', value: hCpu <= GOALS.help && lCpu <= GOALS.list },
      ],
      notes: ['`bin/payd …` (compiled dist/) from spawn to exit, through /usr/bin/time; wall time depends on what else the machine runs, CPU time much less'],
    };
  } finally {
    d.close();
  }
}

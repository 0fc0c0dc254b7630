// `npm run bench [section…] [--profile]`: runs the sections (all by default), prints a
// plain-text report and writes the same as JSON to bench/results/latest.json.
// To add a section: write bench/sections/<name>.ts exporting a `Section` and list it below.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiSection } from './sections/api.ts';
import { cliSection } from './sections/cli.ts';
import { formatReport, writeJson, type BenchContext, type Section, type SectionResult } from './lib/report.ts';
import { webhooksSection } from './sections/webhooks.ts';
import { upiSection } from './sections/upi.ts';
import { tronSection } from './sections/tron.ts';
import { solanaSection } from './sections/solana.ts';
import { evmSection } from './sections/evm.ts';
import { pgSection } from './sections/pg.ts';
import { outageSection } from './sections/outage.ts';

const SECTIONS: Record<string, Section> = {
  cli: cliSection,
  api: apiSection,
  webhooks: webhooksSection,
  upi: upiSection,
  tron: tronSection,
  solana: solanaSection,
  evm: evmSection,
  pg: pgSection,
  outage: outageSection,
};

/** Bounds the whole run: a hung section must not hang the machine's shared CPU forever. */
const DEADLINE_MS = 25 * 60_000;

async function main(argv: string[]): Promise<void> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const names = argv.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !(n in SECTIONS));
  if (unknown.length > 0 || flags.has('--help')) {
    console.error(`usage: npm run bench [-- ${Object.keys(SECTIONS).join('|')} …] [--profile]${unknown.length ? `\nunknown section: ${unknown.join(', ')}` : ''}`);
    process.exitCode = unknown.length ? 2 : 0;
    return;
  }
  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  const profileDir = flags.has('--profile') ? `${resultsDir}profiles` : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const ctx: BenchContext = { progress: (msg) => console.error(`[bench] ${msg}`), profileDir };
  const meta = { startedAt: new Date().toISOString() };
  const results: Record<string, SectionResult> = {};
  for (const name of names.length ? names : Object.keys(SECTIONS)) {
    const started = Date.now();
    results[name] = await SECTIONS[name](ctx);
    ctx.progress(`${name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  console.log('\n' + formatReport(results, meta));
  writeJson(`${resultsDir}latest.json`, results, meta);
  console.log(`\n(written to bench/results/latest.json)`);
}

const deadline = setTimeout(() => {
  console.error(`[bench] gave up after ${DEADLINE_MS / 1000} s`);
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();

main(process.argv.slice(2)).then(
  // Every section closes what it started; exit explicitly in case a library keeps a handle open.
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

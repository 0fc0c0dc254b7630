// Shared by the method sections (upi, tron, solana): a real payd with chosen methods,
// settlement polling, latency summaries, and a cycle counter around the source's ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/methods/load-config.ts';
import { silentLogger } from '../../src/log/index.ts';
import { builtinMethods, createSources } from '../../src/methods/registry.ts';
import { systemRandom } from '../../src/system.ts';
import { baseConfig, startPayd, type PaydHarness } from '../../test/helpers/payd.ts';
import { percentile, round, type Row } from './report.ts';

/** Every method off except the ones given (the base config enables all four). */
export const only = (methods: Record<string, unknown>) => ({ UPI: undefined, USDT_TRC20: undefined, SOL: undefined, USDT_SOL: undefined, ...methods });

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The polling benches (TRON, Solana) share one design: same poll interval, sample and cycle counts. */
export const POLL_S = 0.5;
export const SAMPLES = 20;
/** Fast polling for the request count: only whole cycles are counted, the interval does not matter. */
export const COUNT_POLL_S = 0.05;
export const CYCLES = 20;
export const MANY = 1000;
export const BACKGROUND = 50;

/** A real payd with workers and the real sources for `methods`. */
export async function startMethodPayd(methods: Record<string, unknown>): Promise<PaydHarness> {
  return startPayd({ workers: true, sources: 'configured', config: { methods: only(methods) } });
}

/**
 * A real payd whose sources are built by the same factory as the app's (createSources), but
 * over a ledger that counts polling cycles: every TRON sweep and every Solana scan loads its
 * checkpoint exactly once, so each loadCheckpoint call marks the start of one cycle.
 * `upstreamCount` is read at each cycle start, so requests between two marks belong to one cycle.
 */
export async function startCountedPayd(methods: Record<string, unknown>, upstreamCount: () => number) {
  const dir = mkdtempSync(join(tmpdir(), 'payd-bench-'));
  const config = parseConfig(baseConfig(dir, { methods: only(methods) }), dir, {});
  const marks: number[] = [];
  const p = await startPayd({
    dir,
    workers: true,
    config: { methods: only(methods) },
    sources: ({ ledger }) => {
      const counted = new Proxy(ledger, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver);
          if (prop !== 'loadCheckpoint' || typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            marks.push(upstreamCount());
            return v.apply(target, args);
          };
        },
      });
      return createSources(config, builtinMethods, { ledger: counted, clock: { now: () => Date.now() }, random: systemRandom, log: silentLogger() });
    },
  });
  return {
    p,
    /** Upstream requests per cycle over `cycles` whole cycles, starting at the next cycle. */
    async requestsPerCycle(cycles: number, timeoutMs: number): Promise<{ perCycle: number; requests: number; cycles: number }> {
      const first = marks.length; // index of the next cycle to start
      const deadline = Date.now() + timeoutMs;
      while (marks.length < first + cycles + 1) {
        if (Date.now() > deadline) throw new Error(`only ${marks.length - first} of ${cycles + 1} polling cycles started within ${timeoutMs} ms`);
        await sleep(5);
      }
      const requests = marks[first + cycles] - marks[first];
      return { perCycle: requests / cycles, requests, cycles };
    },
    async close() {
      await p.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls the intent every `everyMs` until settled; returns ms since `t0`, or throws after `timeoutMs`. */
export async function untilSettled(p: PaydHarness, intentId: string, t0: number, timeoutMs: number, everyMs = 10): Promise<number> {
  const deadline = t0 + timeoutMs;
  for (;;) {
    if ((await p.app.intents.get(intentId)).status === 'settled') return performance.now() - t0;
    if (performance.now() > deadline) throw new Error(`intent ${intentId} not settled within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** A decimal string ("12.5") in minor units with `decimals` places. */
export function toMinor(amount: string, decimals: number): bigint {
  const [whole, frac = ''] = amount.split('.');
  if (frac.length > decimals) throw new Error(`${amount} has more than ${decimals} decimals`);
  return BigInt(whole + frac.padEnd(decimals, '0'));
}

/** Median / p95 / max rows for a latency sample (ms), plus median as a ratio of `per` if given. */
export function latencyRows(label: string, sample: number[], per?: { ms: number; name: string }): Row[] {
  const med = percentile(sample, 50);
  const rows: Row[] = [
    { metric: `${label}: median`, value: round(med, 0), unit: 'ms', note: `n=${sample.length}` },
    { metric: `${label}: p95`, value: round(percentile(sample, 95), 0), unit: 'ms', note: `max ${round(Math.max(...sample), 0)} ms` },
  ];
  if (per) {
    rows.push({ metric: `${label}: median / ${per.name}`, value: round(med / per.ms), unit: 'x' });
    rows.push({ metric: `${label}: p95 / ${per.name}`, value: round(percentile(sample, 95) / per.ms), unit: 'x' });
  }
  return rows;
}

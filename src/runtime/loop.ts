import type { Logger, Random } from '../domain/ports.ts';
import { describeError } from '../domain/errors.ts';
import { cycleReporterOf } from './cycle.ts';
import { jittered, sleep } from './sleep.ts';
import type { WakeSignal } from './wake.ts';

export interface LoopOptions {
  name: string;
  /** Pause between successful ticks, ms. */
  intervalMs: number;
  /** One unit of work; the loop never runs two at once. */
  tick: (signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
  log: Logger;
  random: Random;
  /** Backoff after failure k is min(maxMs, baseMs * 2^(k-1)) with ±20 % jitter. */
  backoff?: { baseMs: number; maxMs: number };
  /** Resolves early when something (an IDLE push, a settlement) asks for a tick now. */
  wake?: WakeSignal;
}

/** Runs `tick` until the signal aborts: one at a time, backing off with jitter after failures. */
export async function runLoop(options: LoopOptions): Promise<void> {
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  // A completed tick is a completed cycle for the supervised source this loop runs in.
  const report = cycleReporterOf(options.signal);
  report?.interval(options.intervalMs);
  let failures = 0;
  while (!options.signal.aborted) {
    let error = '';
    let needsOperator = false;
    try {
      await options.tick(options.signal);
      if (failures > 0) options.log.info(`${options.name} recovered`, { after_failures: failures });
      failures = 0;
      report?.ok();
    } catch (err) {
      if (options.signal.aborted) break;
      failures += 1;
      error = describeError(err);
      needsOperator = (err as { needsOperator?: unknown })?.needsOperator === true;
      options.log.warn(`${options.name} failed; backing off`, { error, failures });
    }
    const wait = failures === 0 ? options.intervalMs : jittered(Math.min(backoff.maxMs, backoff.baseMs * 2 ** (failures - 1)), options.random);
    if (failures > 0) report?.failed(error, wait, needsOperator);
    await sleep(wait, options.signal, failures === 0 ? options.wake : undefined);
  }
}

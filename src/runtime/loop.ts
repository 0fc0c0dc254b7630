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
export async function runLoop(o: LoopOptions): Promise<void> {
  const backoff = o.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  // A completed tick is a completed cycle for the supervised source this loop runs in.
  const report = cycleReporterOf(o.signal);
  report?.interval(o.intervalMs);
  let failures = 0;
  while (!o.signal.aborted) {
    let error = '';
    let needsOperator = false;
    try {
      await o.tick(o.signal);
      if (failures > 0) o.log.info(`${o.name} recovered`, { after_failures: failures });
      failures = 0;
      report?.ok();
    } catch (err) {
      if (o.signal.aborted) break;
      failures += 1;
      error = describeError(err);
      needsOperator = (err as { needsOperator?: unknown })?.needsOperator === true;
      o.log.warn(`${o.name} failed; backing off`, { error, failures });
    }
    const wait = failures === 0 ? o.intervalMs : jittered(Math.min(backoff.maxMs, backoff.baseMs * 2 ** (failures - 1)), o.random);
    if (failures > 0) report?.failed(error, wait, needsOperator);
    await sleep(wait, o.signal, failures === 0 ? o.wake : undefined);
  }
}

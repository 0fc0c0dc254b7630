import type { Logger, PaymentSource, Random } from '../domain/ports.ts';
import { runWithCycleReporter } from '../runtime/cycle.ts';
import { describeError } from '../domain/errors.ts';
import { jittered, sleep } from '../runtime/sleep.ts';
import type { SourceHealth } from './source-health.ts';

export interface SuperviseOptions {
  source: PaymentSource;
  health: SourceHealth;
  signal: AbortSignal;
  log: Logger;
  random: Random;
  /** Restart delay after crash k: min(maxMs, baseMs * 2^(k-1)), ±20 % jitter. */
  backoff?: { baseMs: number; maxMs: number };
}

/**
 * Runs a source until the signal aborts. A source should never throw, but if it does
 * (or returns early) that is logged as an error, shown by /readyz, and the source is
 * restarted with backoff: it never dies silently.
 */
export async function superviseSource(options: SuperviseOptions): Promise<void> {
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  let crashes = 0;
  options.health.started();
  try {
    while (!options.signal.aborted) {
      const okBefore = options.health.lastOkAt;
      let error: string;
      try {
        await runWithCycleReporter(options.health.reporter, options.signal, (signal) => options.source.run(signal));
        if (options.signal.aborted) break;
        error = 'run() returned while it should keep running';
      } catch (err) {
        if (options.signal.aborted) break;
        error = describeError(err);
      }
      // A run that completed cycles was healthy: start the backoff over.
      crashes = options.health.lastOkAt !== okBefore ? 1 : crashes + 1;
      const wait = jittered(Math.min(backoff.maxMs, backoff.baseMs * 2 ** (crashes - 1)), options.random);
      options.health.crashed(error, wait);
      options.log.error('payment source crashed; restarting', { source: options.source.name, error, crashes, retry_in_ms: Math.round(wait) });
      await sleep(wait, options.signal);
    }
  } finally {
    options.health.stopped();
  }
}

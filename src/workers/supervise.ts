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
export async function superviseSource(o: SuperviseOptions): Promise<void> {
  const backoff = o.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  let crashes = 0;
  o.health.started();
  try {
    while (!o.signal.aborted) {
      const okBefore = o.health.lastOkAt;
      let error: string;
      try {
        await runWithCycleReporter(o.health.reporter, o.signal, (signal) => o.source.run(signal));
        if (o.signal.aborted) break;
        error = 'run() returned while it should keep running';
      } catch (err) {
        if (o.signal.aborted) break;
        error = describeError(err);
      }
      // A run that completed cycles was healthy: start the backoff over.
      crashes = o.health.lastOkAt !== okBefore ? 1 : crashes + 1;
      const wait = jittered(Math.min(backoff.maxMs, backoff.baseMs * 2 ** (crashes - 1)), o.random);
      o.health.crashed(error, wait);
      o.log.error('payment source crashed; restarting', { source: o.source.name, error, crashes, retry_in_ms: Math.round(wait) });
      await sleep(wait, o.signal);
    }
  } finally {
    o.health.stopped();
  }
}

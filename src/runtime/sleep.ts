import type { Random } from '../domain/ports.ts';
import type { WakeSignal } from './wake.ts';

/** `ms` spread by ±`spread` (a share) with injected randomness, so retries of many callers do not align. */
export const jittered = (ms: number, random: Random, spread = 0.2): number => Math.max(0, ms * (1 - spread + 2 * spread * random.float()));

/** Sleeps `ms`, ending early on abort or on a wake-up. */
export function sleep(ms: number, signal?: AbortSignal, wake?: WakeSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      wake?.off(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    wake?.on(done);
  });
}

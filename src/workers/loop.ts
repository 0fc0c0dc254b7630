import type { Logger, Random } from '../domain/ports.ts';
import { cycleReporterOf } from './cycle.ts';

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

/** An edge-triggered "work may be waiting" signal; a wake with nobody sleeping is remembered once. */
export class WakeSignal {
  #waiters = new Set<() => void>();
  #pending = false;
  on(fn: () => void): void {
    if (this.#pending) {
      this.#pending = false;
      queueMicrotask(fn);
      return;
    }
    this.#waiters.add(fn);
  }
  off(fn: () => void): void {
    this.#waiters.delete(fn);
  }
  wake(): void {
    if (this.#waiters.size === 0) {
      this.#pending = true;
      return;
    }
    const fns = [...this.#waiters];
    this.#waiters.clear();
    for (const fn of fns) fn();
  }
}

export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${code ? code + ' ' : ''}${err.message}${cause}`;
  }
  return String(err);
}

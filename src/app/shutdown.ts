import type { Logger } from '../domain/ports.ts';
import { describeError } from '../workers/loop.ts';

/** A stop of something start() started, registered as it starts. */
export interface Stop {
  name: string;
  stop: () => Promise<void>;
}

/**
 * Stops everything started (newest first, together), then releases what the app built (in
 * reverse order), racing one deadline. Resolves false when the deadline passed first.
 */
export async function closeWithin(deadline: number, stops: Stop[], cleanups: Array<() => Promise<void> | void>, log: Logger, stopped: () => void): Promise<boolean> {
  const all = (async () => {
    const pending = stops.splice(0).reverse();
    const results = await Promise.allSettled(pending.map(({ stop }) => stop()));
    results.forEach((r, i) => r.status === 'rejected' && log.error(`stopping ${pending[i]!.name} failed`, { error: describeError(r.reason) }));
    stopped();
    for (const fn of cleanups.splice(0).reverse()) await fn();
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([all.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

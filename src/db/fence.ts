import { AsyncLocalStorage } from 'node:async_hooks';
import { DATABASE_NOW_SQL } from './clock.ts';

/**
 * The worker lease as one take of it: its holder and its generation (the lease row's
 * `acquired_at`, by the database's clock: a take can only happen after the previous holder's
 * lease ran out or was released, so every take has a larger one than the take before).
 */
export interface LeaseFence {
  holder: string;
  generation: number;
}

/** Thrown instead of committing a worker's write once its lease take is no longer the live one. */
export class FencedOut extends Error {
  constructor(fence: LeaseFence) {
    super(`the worker lease taken at ${fence.generation} by ${fence.holder} is no longer held; the write was refused`);
    this.name = 'FencedOut';
  }
}

const fenced = new AsyncLocalStorage<LeaseFence>();

/**
 * Runs `work` (the leader's workers) so that every write it makes on PostgreSQL, in whatever
 * code path, commits only while `fence` is still the live, unexpired lease (postgres.ts checks
 * it inside the write's own transaction, see FENCE_CHECK). Writes of API requests, which run
 * outside, are not fenced.
 */
export function runFenced<T>(fence: LeaseFence, work: () => Promise<T>): Promise<T> {
  return fenced.run(fence, work);
}

/** The fence of the worker this call runs in, if any. */
export function activeFence(): LeaseFence | undefined {
  return fenced.getStore();
}

/**
 * Run last in a fenced transaction, just before COMMIT: the lease row as this take left it,
 * unexpired by the database's clock. FOR SHARE holds the row until the COMMIT, so a takeover
 * (an UPDATE of that row) waits for this write to commit, and a write that comes after the
 * takeover finds a different row: no fenced write commits once another node leads.
 */
export const FENCE_CHECK = {
  text: `SELECT 1 FROM worker_lease WHERE name = 'workers' AND holder = $1 AND acquired_at = $2 AND expires_at > ${DATABASE_NOW_SQL} FOR SHARE`,
  params: (fence: LeaseFence): unknown[] => [fence.holder, fence.generation],
};

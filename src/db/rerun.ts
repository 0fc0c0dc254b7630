/**
 * How long a PostgreSQL transaction is run again after an abort that a fresh run resolves (a
 * deadlock, a serialization failure, a row changed under it, an order created at the same
 * moment) before its error stands, ms. A time budget, not a count: under a burst on a loaded
 * machine a few quick re-runs can all meet the same contention, while the time a client
 * waits is what matters.
 */
export const RERUN_BUDGET_MS = 5000;
/** The longest pause between runs, ms (full jitter below it). */
const MAX_PAUSE_MS = 200;

/**
 * Runs `run` until it succeeds, throws an error `again` refuses, or the budget is spent (then
 * the last error stands). Pauses grow 5, 10, 20 … up to 200 ms, each a random share of that
 * (`jitter`, [0, 1)) so two transactions that collided do not collide again in step.
 */
export async function rerunning<T>(run: () => Promise<T>, again: (err: unknown) => boolean, options: { budgetMs?: number; jitter?: () => number } = {}): Promise<T> {
  const deadline = Date.now() + (options.budgetMs ?? RERUN_BUDGET_MS);
  const jitter = options.jitter ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const left = deadline - Date.now();
      if (left <= 0 || !again(err)) throw err;
      const pause = Math.min(left, jitter() * Math.min(MAX_PAUSE_MS, 5 * 2 ** attempt));
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

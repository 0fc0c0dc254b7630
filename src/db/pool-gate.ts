/**
 * At most `size` holders at once; the others wait in arrival order, each for at most the
 * `waitMs` it entered with, then `enter` rejects with `timeout()`. PostgreSQL's pool sits behind it (postgres.ts) so that
 * waiting for a busy pool (a burst: backpressure, not a failure) has its own budget, apart from
 * the pg driver's connect timeout, which then only bounds opening a connection (a database
 * out of reach).
 */
export interface Gate {
  enter(waitMs: number): Promise<void>;
  /** Exactly once per successful `enter`. */
  leave(): void;
  /** Rejects everyone waiting now with `error()` (what they wait for will not come soon). */
  failWaiting(error: () => Error): void;
}

export function createGate(size: number, timeout: () => Error): Gate {
  let free = size;
  const waiting: Array<{ grant: () => void; fail: (err: Error) => void }> = [];
  return {
    enter(waitMs) {
      if (free > 0 && waiting.length === 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const entry = {
          grant: () => {
            clearTimeout(timer);
            resolve();
          },
          fail: (err: Error) => {
            clearTimeout(timer);
            reject(err);
          },
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(entry), 1);
          reject(timeout());
        }, waitMs);
        waiting.push(entry);
      });
    },
    leave() {
      const next = waiting.shift();
      if (next) next.grant();
      else free++;
    },
    failWaiting(error) {
      for (const entry of waiting.splice(0)) entry.fail(error());
    },
  };
}

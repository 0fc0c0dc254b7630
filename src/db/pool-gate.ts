/**
 * At most `size` holders at once; the others wait in arrival order, each for at most `waitMs`,
 * then `enter` rejects with `timeout()`. PostgreSQL's pool sits behind it (postgres.ts) so that
 * waiting for a busy pool (a burst: backpressure, not a failure) has its own budget, apart from
 * the pg driver's connect timeout, which then only bounds opening a connection (a database
 * out of reach).
 */
export interface Gate {
  enter(): Promise<void>;
  /** Exactly once per successful `enter`. */
  leave(): void;
}

export function createGate(size: number, waitMs: number, timeout: () => Error): Gate {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    enter() {
      if (free > 0 && waiting.length === 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const grant = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(grant), 1);
          reject(timeout());
        }, waitMs);
        waiting.push(grant);
      });
    },
    leave() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

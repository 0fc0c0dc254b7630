/**
 * The one request deadline both chain clients use (TronGrid, Solana RPC). A plain
 * timer and controller rather than AbortSignal.any(AbortSignal.timeout()): Node holds
 * those timeout signals weakly, and a collected one never fires.
 */

/** The work did not finish within its deadline (the caller's own signal did not abort). */
export class DeadlineError extends Error {
  override name = 'TimeoutError';
  constructor(
    readonly ms: number,
    message = `timed out after ${ms} ms`,
  ) {
    super(message);
  }
}

/**
 * Runs `work` with a signal that aborts when `signal` does or after `ms`. The whole of
 * `work` (headers and body) must finish in time. Throws DeadlineError on the deadline,
 * the caller's abort reason on abort, otherwise whatever `work` throws.
 */
export async function withDeadline<T>(ms: number, signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const timeout = new DeadlineError(ms);
  const onAbort = () => ac.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => ac.abort(timeout), ms);
  try {
    return await work(ac.signal);
  } catch (err) {
    if (ac.signal.reason === timeout && !signal.aborted) throw timeout;
    throw err;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

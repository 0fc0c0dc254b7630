/**
 * How long a credit may wait for a second endpoint to list it. A transfer one endpoint lists and
 * no other does is either not indexed there yet (it confirms within minutes) or not on the chain
 * (a lying or forked provider): it moves no money either way, and without a bound it would wait
 * silently until it left the re-scan's window. Once it has waited `boundMs` since payd first saw
 * it waiting, it is recorded as rejected (`unconfirmed_transfer`, with the endpoint that listed it),
 * once, and logged as an error. Should a second endpoint list it alike later, it still settles then.
 * Kept in memory: after a restart the wait starts again at the next listing that shows it.
 */
import type { Clock } from '../../domain/ports.ts';

/** Entries this much past the bound are forgotten: the re-scan's window has long passed them by. */
const FORGET_MS = 2 * 86_400_000;

export function createUnconfirmedWatch(options: { boundMs: number; clock: Clock }) {
  /** Transaction id → when first seen waiting, and whether it has been rejected. */
  const waiting = new Map<string, { since: number; rejected: boolean }>();

  function forgetOld(now: number): void {
    for (const [txid, w] of waiting) if (now - w.since > options.boundMs + FORGET_MS) waiting.delete(txid);
  }

  return {
    boundMs: options.boundMs,
    /** `txid` waits for a second endpoint again: true the one time it has waited past the bound. */
    overdue(txid: string): boolean {
      const now = options.clock.now();
      forgetOld(now);
      const w = waiting.get(txid);
      if (!w) {
        waiting.set(txid, { since: now, rejected: false });
        return false;
      }
      if (w.rejected || now - w.since < options.boundMs) return false;
      w.rejected = true;
      return true;
    },
    /** A second endpoint listed `txid` alike (or contradicted it): it waits no more. */
    settled(txid: string): void {
      waiting.delete(txid);
    },
  };
}

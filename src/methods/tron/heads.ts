/**
 * The endpoints' solidified heads: each cycle reads every ready endpoint's head side by side, one
 * not believed is logged once per spell and counts for nothing, and the first sighting of each
 * believed head dates what a complete listing has caught up to.
 */
import type { Clock, Logger } from '../../domain/ports.ts';
import { createHeadWatch } from '../../domain/head-watch.ts';
import { describeError } from '../../domain/errors.ts';
import { sleep } from '../../runtime/sleep.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import type { TronRequests } from './requests.ts';
import type { TronEndpoint } from './tuning.ts';

/** Each believed endpoint's solidified head as read this cycle. */
export type HeadReads = Map<Member<TronEndpoint>, { number: number; timestamp: number }>;

export interface HeadsDeps {
  pool: UpstreamPool<TronEndpoint>;
  requests: TronRequests;
  clock: Clock;
  log: Logger;
  /** How long a cycle waits for the endpoints' heads, ms. */
  headWaitMs?: number;
}

export function createTronHeads(deps: HeadsDeps) {
  const heads = createHeadWatch();
  /** Endpoints whose head was last not believed (logged once per spell). */
  const doubted = new Set<Member<TronEndpoint>>();

  /**
   * Every ready endpoint's solidified head, read side by side, waiting at most `headWaitMs`: a
   * complete listing has handled everything up to the head its endpoint reported before it. Only
   * for the lag and the choice of endpoint: a failed read is recorded and the listing goes ahead.
   */
  async function readHeads(signal: AbortSignal): Promise<HeadReads> {
    const got: HeadReads = new Map();
    const reads = deps.pool.ready().map(async (m) => {
      try {
        const head = await deps.requests.solidifiedHead(m, signal);
        deps.pool.observeHead(m, head.number, head.timestamp || undefined);
        if (!deps.pool.believed(m)) {
          if (!doubted.has(m)) deps.log.warn('TronGrid endpoint head not believed; it serves last and counts for nothing', { endpoint: m.label, head: head.number, why: m.health.suspect });
          doubted.add(m);
          return;
        }
        doubted.delete(m);
        heads.observe(head.number, deps.clock.now());
        got.set(m, head);
      } catch (err) {
        if (!signal.aborted) deps.log.warn('TronGrid solidified head unreadable; the lag cannot advance', { endpoint: m.label, error: describeError(err) });
      }
    });
    const done = new AbortController();
    await Promise.race([Promise.all(reads), sleep(deps.headWaitMs ?? 2000, AbortSignal.any([signal, done.signal]))]);
    done.abort(); // the wait's timer goes with it
    return new Map(got);
  }

  return { readHeads, asOf: (head: number) => heads.asOf(head) };
}

/**
 * The endpoints' heads: each cycle reads every ready endpoint's slot side by side, and the
 * first sighting of each slot dates what a completed scan has caught up to.
 */
import type { Finality } from '@solana/web3.js';
import type { Clock } from '../../domain/ports.ts';
import { createHeadWatch } from '../../domain/head-watch.ts';
import { sleep } from '../../runtime/sleep.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import type { SolanaEndpoint } from './rpc.ts';

/** Each endpoint's slot as read this cycle, or why it could not be read. */
export type HeadReads = Map<Member<SolanaEndpoint>, number | { error: unknown }>;

/** `o`: the poller's options (PollerOptions, poller.ts). */
export function createHeads(options: { pool: UpstreamPool<SolanaEndpoint>; commitment: Finality; clock: Clock; headWaitMs?: number }) {
  const heads = createHeadWatch();

  /**
   * One endpoint's slot at the commitment, asked now, and noted as its head; only a believed slot
   * dates the lag (one far ahead of the others would otherwise make every scan look late).
   */
  async function readHead(m: Member<SolanaEndpoint>): Promise<number> {
    const slot = await m.spec.conn.getSlot(options.commitment);
    options.pool.observeHead(m, slot);
    if (options.pool.believed(m)) heads.observe(slot, options.clock.now());
    return slot;
  }

  /**
   * Every ready endpoint's slot at the commitment, side by side, waiting at most `headWaitMs`:
   * a complete scan has handled everything up to the slot its endpoint reported before it.
   */
  async function readHeads(signal: AbortSignal): Promise<HeadReads> {
    const got: HeadReads = new Map();
    const reads = options.pool.ready().map(async (m) => {
      try {
        got.set(m, await readHead(m));
      } catch (err) {
        got.set(m, { error: err });
      }
    });
    const done = new AbortController();
    await Promise.race([Promise.all(reads), sleep(options.headWaitMs ?? 2000, AbortSignal.any([signal, done.signal]))]);
    done.abort(); // the wait's timer goes with it
    return new Map(got);
  }

  return { readHead, readHeads, asOf: (slot: number) => heads.asOf(slot) };
}

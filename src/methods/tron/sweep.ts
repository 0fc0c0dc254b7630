/**
 * The sweep: everything listed on one endpoint since the checkpoint, each new row handed to the
 * ledger with the cursor that covers it. The cursor holds block times and row names, never an
 * endpoint's fingerprint, so any endpoint may serve the next sweep; the watermark never passes
 * the agreed head's block time nor the wall clock (rows past it are listed again later).
 */
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import { CLOCK_SKEW_MS } from '../upstream-heads.ts';
import { rowKeys } from './adapt.ts';
import { completeListing, isSeen, listFrom, markSeen, readCursor, startCursor, type TronCursor } from './cursor.ts';
import type { RowHandler } from './handle.ts';
import { decideRows, type RowDecision } from './netting.ts';
import { walkPages } from './pages.ts';
import type { PageFilter, Trc20Item } from './trc20-page.ts';
import type { PollerTuning, TronEndpoint } from './tuning.ts';

export interface SweepDeps {
  /** The cursor's checkpoint key. */
  key: string;
  address: string;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  pool: UpstreamPool<TronEndpoint>;
  tuning: PollerTuning;
  filter: PageFilter;
  walk(m: Member<TronEndpoint>, signal: AbortSignal): (minTimestamp: number, fingerprint: string | undefined) => Promise<unknown>;
  /** Which of the rows `m` listed may move money now (confirmed by the pool's quorum; credit-gate.ts). */
  confirmed(rows: RowDecision[], items: Trc20Item[], m: Member<TronEndpoint>, signal: AbortSignal): Promise<(r: RowDecision) => boolean>;
  handle: RowHandler;
}

export function createSweep(deps: SweepDeps) {
  /** When the last complete listing ended (this process); undefined until the start-up catch-up is done. */
  let caughtUpAt: number | undefined;

  async function loadCursor(): Promise<TronCursor> {
    const raw = await deps.ledger.loadCheckpoint<unknown>(deps.key);
    const cursor = readCursor(raw);
    if (cursor) return cursor;
    if (raw !== undefined) deps.log.error('unreadable TronGrid checkpoint; starting from the lookback window', { key: deps.key });
    const fresh = startCursor(deps.clock.now(), deps.tuning.lookbackMs);
    // Saved at once so a restart backfills from here, not from a later "now".
    await deps.ledger.saveCheckpoint({ key: deps.key, value: fresh });
    deps.log.info('TronGrid first start', { from: new Date(fresh.watermark).toISOString() });
    return fresh;
  }

  /**
   * Lists everything since the checkpoint on `m` and hands each new transfer to the ledger with its
   * checkpoint: `complete` when the listing completed, `fresh` the rows handed over. Rows past the
   * agreed head's block time or the wall clock are left for a later listing, and the watermark
   * never passes them.
   */
  async function run(m: Member<TronEndpoint>, signal: AbortSignal): Promise<{ complete: boolean; fresh: number }> {
    let cursor = await loadCursor();
    const cap = Math.min(deps.pool.agreedHead()?.time ?? Infinity, deps.clock.now() + CLOCK_SKEW_MS);
    let fresh = 0;
    let ascending = true;
    let newest: number | undefined;
    const rows = rowKeys();
    let handled = 0;
    const { complete } = await walkPages({
      fetchPage: deps.walk(m, signal),
      filter: deps.filter,
      minTimestamp: listFrom(cursor, deps.tuning.overlapMs), // unchanged across pages, as paging requires
      maxPages: deps.tuning.maxPagesPerTick,
      pageLimit: deps.tuning.pageLimit,
      signal,
      log: deps.log,
      // Held rows are listed again by the next tick (the watermark stays before them), unless
      // this tick would otherwise handle nothing at all: then progress comes first.
      mayHold: (last) => !(last && handled === 0),
      onBatch: async (listed: Trc20Item[]) => {
        const items = listed.filter((i) => i.blockTimestamp <= cap);
        for (const item of items) {
          if (newest !== undefined && item.blockTimestamp < newest) ascending = false;
          newest = Math.max(newest ?? item.blockTimestamp, item.blockTimestamp);
        }
        // A bare transaction id is what cursors written before rows were told apart hold.
        const decided = decideRows(items, deps.address, rows).filter((r) => {
          handled += 1;
          return !isSeen(cursor, r.row) && !isSeen(cursor, r.item.txid);
        });
        const settles = await deps.confirmed(decided, items, m, signal);
        for (const r of decided) {
          // Not marked seen: listed (and asked about) again while the overlap or the re-scan covers it.
          if (!settles(r)) continue;
          const next = markSeen(cursor, r.row, r.item.blockTimestamp, deps.tuning.overlapMs, ascending, cap);
          await deps.handle(r, { key: deps.key, value: next });
          fresh += 1;
          cursor = next;
        }
      },
    });
    if (!complete || signal.aborted) return { complete: false, fresh }; // more pages wait; not caught up yet
    const done = completeListing(cursor, newest, deps.tuning.overlapMs, cap);
    if (done !== cursor) await deps.ledger.saveCheckpoint({ key: deps.key, value: done });
    caughtUpAt = deps.clock.now();
    return { complete: true, fresh };
  }

  return { run, caughtUpAt: () => caughtUpAt };
}

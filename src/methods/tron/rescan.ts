/**
 * Deep re-scan: TronGrid has listed transfers late and back-filled them (TRON-US/trongrid#16,
 * trustwallet/blockatlas#969); anything that appears behind the overlap window would
 * otherwise never be looked at again. Every rescanMs, the last rescanWindowMs is listed
 * with the same filters and every row handed to the ledger, which records only what it
 * does not have yet. One listing (plus pages) per run, whatever the number of intents;
 * the sweep's cursor is not touched. It also catches what one endpoint showed and another
 * had not indexed when it served the sweep.
 */
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import type { Member } from '../upstream-health.ts';
import { rowKeys } from './adapt.ts';
import { decideRows, heldFromJson, heldToJson, type RowDecision } from './netting.ts';
import { walkPages } from './pages.ts';
import type { PollerTuning, TronEndpoint } from './tuning.ts';
import type { PageFilter, Trc20Item } from './trc20-page.ts';

/** Progress of the deep re-scan, kept beside the cursor; a run cut short resumes at its page. */
interface RescanState {
  v: 1;
  /** When the last run completed, ms. */
  at?: number;
  /**
   * `held`: rows of the last block listed so far, decided with the next page (netting.ts): a
   * transaction's rows, split over a page (and tick) boundary, are decided and named together.
   * `endpoint`: whose fingerprint this is; on another endpoint the run starts its listing again.
   */
  run?: { minTimestamp: number; fingerprint: string; held?: unknown[]; endpoint?: string };
}

function readRescan(raw: unknown): RescanState {
  if (typeof raw !== 'object' || raw === null || (raw as RescanState).v !== 1) return { v: 1 };
  const r = raw as RescanState;
  const run =
    r.run && typeof r.run.minTimestamp === 'number' && typeof r.run.fingerprint === 'string'
      ? { minTimestamp: r.run.minTimestamp, fingerprint: r.run.fingerprint, held: heldToJson(heldFromJson(r.run.held)), ...(typeof r.run.endpoint === 'string' ? { endpoint: r.run.endpoint } : {}) }
      : undefined;
  return { v: 1, ...(typeof r.at === 'number' ? { at: r.at } : {}), ...(run ? { run } : {}) };
}

export interface RescanDeps {
  key: string;
  address: string;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  tuning: PollerTuning;
  filter: PageFilter;
  walk(m: Member<TronEndpoint>, signal: AbortSignal): (minTimestamp: number, fingerprint: string | undefined) => Promise<unknown>;
  /** Which of the rows `m` listed may move money now (confirmed by the pool's quorum; credit-gate.ts). */
  confirmed(rows: RowDecision[], items: Trc20Item[], m: Member<TronEndpoint>, signal: AbortSignal): Promise<(r: RowDecision) => boolean>;
  /** Hands one row to the ledger; true when the ledger did not have it yet. */
  handle(r: RowDecision): Promise<boolean>;
}

export function createRescan(deps: RescanDeps) {
  async function run(m: Member<TronEndpoint>, signal: AbortSignal): Promise<void> {
    const raw = await deps.ledger.loadCheckpoint<unknown>(deps.key);
    const state = readRescan(raw);
    const now = deps.clock.now();
    if (raw === undefined) {
      // The first start's own listing covered the lookback window; the first re-scan is one period away.
      await deps.ledger.saveCheckpoint({ key: deps.key, value: { v: 1, at: now } satisfies RescanState });
      return;
    }
    if (!state.run && state.at !== undefined && now - state.at < deps.tuning.rescanMs) return;
    const minTimestamp = state.run?.minTimestamp ?? Math.max(0, now - deps.tuning.rescanWindowMs);
    // A fingerprint (and the rows held with it) from another endpoint means nothing here: list from the start.
    const resume = state.run && (state.run.endpoint === undefined || state.run.endpoint === m.label) ? state.run : undefined;
    const rows = rowKeys();
    let found = 0;
    const { complete, pages } = await walkPages({
      fetchPage: deps.walk(m, signal),
      filter: deps.filter,
      minTimestamp,
      fingerprint: resume?.fingerprint,
      held: heldFromJson(resume?.held),
      maxPages: deps.tuning.maxPagesPerTick,
      pageLimit: deps.tuning.pageLimit,
      signal,
      log: deps.log,
      mayHold: () => true,
      onBatch: async (items) => {
        const decided = decideRows(items, deps.address, rows);
        const settles = await deps.confirmed(decided, items, m, signal);
        for (const r of decided) {
          if (!settles(r)) continue;
          if (await deps.handle(r)) {
            found += 1;
            deps.log.warn('TronGrid re-scan found a transfer the listing had missed', { txid: r.item.txid, row: r.row, block_timestamp: r.item.blockTimestamp });
          }
        }
      },
      onPage: (fingerprint, held) =>
        deps.ledger.saveCheckpoint({ key: deps.key, value: { v: 1, at: state.at, run: { minTimestamp, fingerprint, held: heldToJson(held), endpoint: m.label } } satisfies RescanState }),
    });
    if (!complete) return; // resumes at this page next tick
    await deps.ledger.saveCheckpoint({ key: deps.key, value: { v: 1, at: deps.clock.now() } satisfies RescanState });
    deps.log.info('TronGrid re-scan done', { from: new Date(minTimestamp).toISOString(), pages, found });
  }
  return { run };
}

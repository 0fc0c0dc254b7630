/**
 * One polling cycle of the TRON source: at most one TronGrid listing (plus its
 * pages) for the receiving address, whatever the number of open intents.
 */
import { USDT_TRC20_DECIMALS } from './units.ts';
import type { IngestOutcome, ReceivedPayment } from '../../domain/payment.ts';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { createHeadWatch, type HeadSighting } from '../../domain/head-watch.ts';
import { cycleReporterOf } from '../../workers/cycle.ts';
import { describeError, sleep } from '../../workers/loop.ts';
import { TronGridError, type TronGridClient } from './client.ts';
import { completeListing, isSeen, listFrom, markSeen, readCursor, startCursor, type TronCursor } from './cursor.ts';
import { decideRows, heldFromJson, heldToJson, holdBack, type RowDecision } from './netting.ts';
import { parseTrc20Page, type PageFilter, type Trc20Item, type Trc20Transfer } from './trc20-page.ts';

export interface PollerTuning {
  /** First start without a checkpoint: how far back to look, ms. */
  lookbackMs: number;
  /** Re-list this much before the watermark, ms; must exceed TRON confirmation + indexing lag (~1 min). */
  overlapMs: number;
  /** With no open intents, still sweep this often so stray payments are recorded, ms. */
  idleSweepMs: number;
  /** TronGrid's maximum page size. */
  pageLimit: number;
  /** Bounds one tick; the next tick continues from the checkpoint. */
  maxPagesPerTick: number;
  /** Deep re-scan period, ms: list `rescanWindowMs` again, whatever the watermark says. */
  rescanMs: number;
  rescanWindowMs: number;
  /** At least this long between two requests, ms (TronGrid's anonymous limit is 1 per second per method). */
  minRequestIntervalMs: number;
}

/** Progress of the deep re-scan, kept beside the cursor; a run cut short resumes at its page. */
interface RescanState {
  v: 1;
  /** When the last run completed, ms. */
  at?: number;
  /**
   * `held`: rows of the last block listed so far, decided with the next page (netting.ts): a
   * transaction's rows, split over a page (and tick) boundary, are decided and named together.
   */
  run?: { minTimestamp: number; fingerprint: string; held?: unknown[] };
}

function readRescan(raw: unknown): RescanState {
  if (typeof raw !== 'object' || raw === null || (raw as RescanState).v !== 1) return { v: 1 };
  const r = raw as RescanState;
  const run = r.run && typeof r.run.minTimestamp === 'number' && typeof r.run.fingerprint === 'string' ? { minTimestamp: r.run.minTimestamp, fingerprint: r.run.fingerprint, held: heldToJson(heldFromJson(r.run.held)) } : undefined;
  return { v: 1, ...(typeof r.at === 'number' ? { at: r.at } : {}), ...(run ? { run } : {}) };
}

export interface PollerDeps {
  address: string;
  contract: string;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  client: TronGridClient;
  tuning: PollerTuning;
}

const METHOD = 'USDT_TRC20';

export function createTronPoller(d: PollerDeps) {
  const key = `trongrid:${METHOD}:${d.address}:${d.contract}`;
  const filter: PageFilter = { receiver: d.address, contract: d.contract, decimals: USDT_TRC20_DECIMALS };
  /** When the last complete listing ended (this process); undefined until the start-up catch-up is done. */
  let caughtUpAt: number | undefined;
  /** No request before this time (ms): the wait TronGrid last asked for. */
  let notBefore = 0;
  /** When the last request was sent (ms), for pacing. */
  let lastRequestAt: number | undefined;
  const rescanKey = `${key}:rescan`;

  async function loadCursor(): Promise<TronCursor> {
    const raw = await d.ledger.loadCheckpoint<unknown>(key);
    const cursor = readCursor(raw);
    if (cursor) return cursor;
    if (raw !== undefined) d.log.error('unreadable TronGrid checkpoint; starting from the lookback window', { key });
    const fresh = startCursor(d.clock.now(), d.tuning.lookbackMs);
    // Saved at once so a restart backfills from here, not from a later "now".
    await d.ledger.saveCheckpoint({ key, value: fresh });
    d.log.info('TronGrid first start', { from: new Date(fresh.watermark).toISOString() });
    return fresh;
  }

  /** One request, paced and honouring the last wait TronGrid asked for. */
  async function paced<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    const due = lastRequestAt === undefined ? 0 : lastRequestAt + d.tuning.minRequestIntervalMs;
    const wait = Math.max(notBefore, due) - d.clock.now();
    if (wait > 0) await sleep(wait, signal);
    if (signal.aborted) throw signal.reason ?? new Error('aborted');
    lastRequestAt = d.clock.now();
    try {
      return await call();
    } catch (err) {
      if (err instanceof TronGridError && err.retryAfterMs !== undefined) notBefore = d.clock.now() + err.retryAfterMs;
      throw err;
    }
  }

  const fetchPage = (minTimestamp: number, fingerprint: string | undefined, signal: AbortSignal) =>
    paced(signal, () => d.client.listTrc20({ address: d.address, contract: d.contract, minTimestamp, limit: d.tuning.pageLimit, fingerprint }, signal));

  const heads = createHeadWatch();
  /**
   * The solidified head before a listing: a complete listing has then handled everything up to it.
   * Only for the lag: a failed read is logged and the listing goes ahead (payments come first).
   */
  async function readHead(signal: AbortSignal): Promise<HeadSighting | undefined> {
    try {
      const head = await paced(signal, () => d.client.solidifiedHead(signal));
      return heads.observe(head.number, d.clock.now());
    } catch (err) {
      if (signal.aborted) throw err;
      d.log.warn('TronGrid solidified head unreadable; the lag cannot advance', { error: describeError(err) });
      return undefined;
    }
  }

  /**
   * Hands one decided row to the ledger (with `checkpoint`, which already covers it). The
   * re-scan (no checkpoint) hands over rows mostly seen before: the ledger tells what is new.
   */
  async function handle(r: RowDecision, checkpoint: { key: string; value: TronCursor } | undefined): Promise<IngestOutcome | undefined> {
    const { item, row } = r;
    if (r.kind === 'reject') {
      if (checkpoint) d.log.warn('TronGrid transfer rejected', { txid: item.txid, row, reason: r.reason });
      await d.ledger.reject(
        { source: 'trongrid', method: METHOD, ref: `trongrid:${row}`, reason: r.reason, detail: { ...r.detail, txid: item.txid, block_timestamp: item.blockTimestamp }, observedAt: d.clock.now() },
        checkpoint,
      );
      return undefined;
    }
    const outcome = await d.ledger.ingest(toPayment(r.item, row, d.address, d.contract, d.clock.now(), r), checkpoint);
    if (checkpoint) d.log.info('TronGrid transfer ingested', { txid: item.txid, row, amount_minor: r.amountMinor, outcome: outcome.kind });
    return outcome;
  }

  /** One page's rows plus those held from the last: what to decide now, and what to hold for the next page. */
  function batchOf(held: Trc20Item[], page: Trc20Item[], more: boolean): { now: Trc20Item[]; held: Trc20Item[] } {
    const all = held.length ? [...held, ...page] : page;
    const keep = more ? holdBack(all, 4 * d.tuning.pageLimit) : [];
    return { now: keep.length ? all.slice(0, all.length - keep.length) : all, held: keep };
  }

  /** Lists everything since the checkpoint and hands each new transfer to the ledger with its checkpoint; true when the listing completed. */
  async function sweep(signal: AbortSignal): Promise<boolean> {
    let cursor = await loadCursor();
    const minTimestamp = listFrom(cursor, d.tuning.overlapMs); // unchanged across pages, as paging requires
    let fingerprint: string | undefined;
    let pages = 0;
    let ascending = true;
    let newest: number | undefined;
    const rows = rowKeys();
    let held: Trc20Item[] = [];
    let handled = 0;
    do {
      const page = parseTrc20Page(await fetchPage(minTimestamp, fingerprint, signal), filter);
      pages += 1;
      if (page.malformed > 0) d.log.warn('TronGrid items without id or timestamp skipped', { count: page.malformed });
      if (page.fingerprint !== undefined && page.fingerprint === fingerprint) throw new TronGridError('TronGrid repeated a page fingerprint', 200);
      fingerprint = page.fingerprint;
      // Held rows are listed again by the next tick (the watermark stays before them), unless
      // this tick would otherwise handle nothing at all: then progress comes first.
      const last = fingerprint === undefined || pages >= d.tuning.maxPagesPerTick || signal.aborted;
      const batch = batchOf(held, page.items, fingerprint !== undefined && !(last && handled === 0));
      held = batch.held;
      for (const item of batch.now) {
        if (newest !== undefined && item.blockTimestamp < newest) ascending = false;
        newest = Math.max(newest ?? item.blockTimestamp, item.blockTimestamp);
      }
      for (const r of decideRows(batch.now, d.address, rows)) {
        handled += 1;
        // A bare transaction id is what cursors written before rows were told apart hold.
        if (isSeen(cursor, r.row) || isSeen(cursor, r.item.txid)) continue;
        const next = markSeen(cursor, r.row, r.item.blockTimestamp, d.tuning.overlapMs, ascending);
        await handle(r, { key, value: next });
        cursor = next;
      }
    } while (fingerprint !== undefined && pages < d.tuning.maxPagesPerTick && !signal.aborted);

    if (fingerprint !== undefined || signal.aborted) return false; // more pages wait; not caught up yet
    const done = completeListing(cursor, newest, d.tuning.overlapMs);
    if (done !== cursor) await d.ledger.saveCheckpoint({ key, value: done });
    caughtUpAt = d.clock.now();
    return true;
  }

  /**
   * Deep re-scan: TronGrid has listed transfers late and back-filled them (TRON-US/trongrid#16,
   * trustwallet/blockatlas#969); anything that appears behind the overlap window would
   * otherwise never be looked at again. Every rescanMs, the last rescanWindowMs is listed
   * with the same filters and every row handed to the ledger, which records only what it
   * does not have yet. One listing (plus pages) per run, whatever the number of intents;
   * the sweep's cursor is not touched.
   */
  async function rescan(signal: AbortSignal): Promise<void> {
    const raw = await d.ledger.loadCheckpoint<unknown>(rescanKey);
    const state = readRescan(raw);
    const now = d.clock.now();
    if (raw === undefined) {
      // The first start's own listing covered the lookback window; the first re-scan is one period away.
      await d.ledger.saveCheckpoint({ key: rescanKey, value: { v: 1, at: now } satisfies RescanState });
      return;
    }
    if (!state.run && state.at !== undefined && now - state.at < d.tuning.rescanMs) return;
    const minTimestamp = state.run?.minTimestamp ?? Math.max(0, now - d.tuning.rescanWindowMs);
    let fingerprint = state.run?.fingerprint;
    let held = heldFromJson(state.run?.held);
    const rows = rowKeys();
    let pages = 0;
    let found = 0;
    do {
      const page = parseTrc20Page(await fetchPage(minTimestamp, fingerprint, signal), filter);
      pages += 1;
      if (page.fingerprint !== undefined && page.fingerprint === fingerprint) throw new TronGridError('TronGrid repeated a page fingerprint', 200);
      const batch = batchOf(held, page.items, page.fingerprint !== undefined);
      held = batch.held;
      for (const r of decideRows(batch.now, d.address, rows)) {
        const outcome = await handle(r, undefined);
        if (outcome && outcome.kind !== 'duplicate') {
          found += 1;
          d.log.warn('TronGrid re-scan found a transfer the listing had missed', { txid: r.item.txid, row: r.row, block_timestamp: r.item.blockTimestamp, outcome: outcome.kind });
        }
      }
      fingerprint = page.fingerprint;
      if (fingerprint !== undefined) await d.ledger.saveCheckpoint({ key: rescanKey, value: { v: 1, at: state.at, run: { minTimestamp, fingerprint, held: heldToJson(held) } } satisfies RescanState });
    } while (fingerprint !== undefined && pages < d.tuning.maxPagesPerTick && !signal.aborted);
    if (fingerprint !== undefined) return; // resumes at this page next tick
    await d.ledger.saveCheckpoint({ key: rescanKey, value: { v: 1, at: d.clock.now() } satisfies RescanState });
    d.log.info('TronGrid re-scan done', { from: new Date(minTimestamp).toISOString(), pages, found });
  }

  /** One cycle. Throws on upstream faults so the loop backs off. */
  async function tick(signal: AbortSignal): Promise<void> {
    const open = await d.ledger.hasOpenIntents(METHOD, d.address);
    const report = cycleReporterOf(signal);
    if (open || caughtUpAt === undefined || d.clock.now() - caughtUpAt >= d.tuning.idleSweepMs) {
      const head = await readHead(signal);
      if ((await sweep(signal)) && head) report?.caughtUp?.(head.seenAt);
    } else {
      // Nothing could settle and the backlog is swept: save the calls. An intent created now is
      // listed on the next tick, so nothing waits behind the head meanwhile.
      report?.caughtUp?.(d.clock.now());
    }
    // Only once caught up, so the start-up catch-up is not delayed by a second listing.
    if (caughtUpAt !== undefined) await rescan(signal);
  }

  return { key, tick };
}

/**
 * Names each Transfer row of one listing. TronGrid gives no event index, and several
 * rows may share a transaction id (batch payouts, multisend contracts), so a row is
 * named by what it says: transaction id, sender, value, and for identical rows of one
 * transaction their count so far. That name does not depend on the listing's order
 * and stays the same when the row is listed again, in any later listing.
 */
export function rowKeys(): (item: Trc20Item) => string {
  const counts = new Map<string, number>();
  return (item) => {
    const base = item.kind === 'invalid' ? `${item.txid}:${String(item.detail.from)}:${String(item.detail.value)}` : `${item.txid}:${item.kind === 'transfer' ? item.from : item.to}:${item.value}`;
    const k = counts.get(base) ?? 0;
    counts.set(base, k + 1);
    return k === 0 ? base : `${base}:${k + 1}`;
  };
}

export function toPayment(t: Trc20Transfer, row: string, receiver: string, contract: string, observedAt: number, net?: { amountMinor: bigint; nettedMinor: bigint }): ReceivedPayment {
  const evidence: Record<string, unknown> = { from: t.from, to: receiver, block_timestamp: t.blockTimestamp, contract, value: t.value.toString() };
  if (t.symbol !== undefined) evidence.symbol = t.symbol;
  // Part of the row went back out in the same transaction (netting.ts): only the rest is paid.
  if (net && net.nettedMinor > 0n) evidence.netted_by_outgoing_minor = net.nettedMinor.toString();
  return {
    method: METHOD,
    receiver,
    amountMinor: net ? net.amountMinor : t.value,
    // Each row is its own payment; the merchant still sees the TRON transaction id.
    txRef: row,
    txHash: t.txid,
    occurredAt: t.blockTimestamp,
    observedAt,
    source: 'trongrid',
    evidence,
  };
}

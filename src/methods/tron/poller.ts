/**
 * One polling cycle of the TRON source: the solidified head of every endpoint, then at most
 * one TronGrid listing (plus its pages) for the receiving address, on the healthiest endpoint,
 * whatever the number of open intents; another endpoint takes over within the cycle when it fails.
 *
 * Endpoints may disagree (one trails another, one has not indexed a row yet, one lies). Nothing
 * depends on which one served: the cursor holds block times and row names, never an endpoint's
 * fingerprint; a row listed by two endpoints has one name (adapt.ts) and the ledger records it
 * once; the watermark never passes the agreed head's block time nor the wall clock (rows past it
 * are listed again later); a credit moves money only once the pool's quorum of endpoints list it
 * alike (confirm.ts); a sweep that hands nothing new is followed by one on a second endpoint; the
 * re-scan runs on another endpoint than the sweep's; and the lag counts from when the newest
 * believable head was first seen.
 */
import type { IngestOutcome } from '../../domain/payment.ts';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { createHeadWatch } from '../../domain/head-watch.ts';
import { cycleReporterOf } from '../../runtime/cycle.ts';
import { describeError } from '../../domain/errors.ts';
import { sleep } from '../../runtime/sleep.ts';
import { AllEndpointsFailed, type UpstreamPool } from '../upstream-pool.ts';
import type { Fault, Member } from '../upstream-health.ts';
import { CLOCK_SKEW_MS } from '../upstream-heads.ts';
import { createTronConfirmer } from './confirm.ts';
import { toPayment, rowKeys } from './adapt.ts';
import { TronGridError } from './client.ts';
import { completeListing, isSeen, listFrom, markSeen, readCursor, startCursor, type TronCursor } from './cursor.ts';
import { decideRows, type RowDecision } from './netting.ts';
import { walkPages } from './pages.ts';
import { createRescan } from './rescan.ts';
import { createUnconfirmedWatch } from './unconfirmed.ts';
import type { PageFilter, Trc20Item } from './trc20-page.ts';
import type { TronAsset } from './tokens.ts';

export type { PollerTuning, TronEndpoint } from './tuning.ts';
import type { PollerTuning, TronEndpoint } from './tuning.ts';

export interface PollerDeps {
  /** The method this token feeds, and its decimals. */
  asset: TronAsset;
  address: string;
  contract: string;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  pool: UpstreamPool<TronEndpoint>;
  tuning: PollerTuning;
}

/** What a TronGrid fault says about the endpoint: a rate limit rests it for the wait it named. */
export function classifyTron(err: unknown): Fault {
  if (err instanceof TronGridError && err.fault === 'rate_limited') return { kind: 'throttled', retryAfterMs: err.retryAfterMs };
  return { kind: 'error' };
}

export function createTronPoller(deps: PollerDeps) {
  const key = `trongrid:${deps.asset.method}:${deps.address}:${deps.contract}`;
  const filter: PageFilter = { receiver: deps.address, contract: deps.contract, decimals: deps.asset.decimals };
  /** When the last complete listing ended (this process); undefined until the start-up catch-up is done. */
  let caughtUpAt: number | undefined;
  /** When each endpoint was last sent a request (ms), for pacing. */
  const lastRequestAt = new Map<Member<TronEndpoint>, number>();

  async function loadCursor(): Promise<TronCursor> {
    const raw = await deps.ledger.loadCheckpoint<unknown>(key);
    const cursor = readCursor(raw);
    if (cursor) return cursor;
    if (raw !== undefined) deps.log.error('unreadable TronGrid checkpoint; starting from the lookback window', { key });
    const fresh = startCursor(deps.clock.now(), deps.tuning.lookbackMs);
    // Saved at once so a restart backfills from here, not from a later "now".
    await deps.ledger.saveCheckpoint({ key, value: fresh });
    deps.log.info('TronGrid first start', { from: new Date(fresh.watermark).toISOString() });
    return fresh;
  }

  /** One request to `m`, paced, after the wait it last asked for, recorded in its health. */
  async function paced<T>(m: Member<TronEndpoint>, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    const last = lastRequestAt.get(m);
    const due = last === undefined ? 0 : last + m.spec.minRequestIntervalMs;
    // A throttled endpoint is asked again only after the wait it named (TronGrid: "suspended for N s").
    const wait = Math.max(m.health.throttled ? m.health.restUntil : 0, due) - deps.clock.now();
    if (wait > 0) await sleep(wait, signal);
    if (signal.aborted) throw signal.reason ?? new Error('aborted');
    lastRequestAt.set(m, deps.clock.now());
    return deps.pool.attempt(m, signal, call, classifyTron);
  }

  const heads = createHeadWatch();
  /** Endpoints whose head was last not believed (logged once per spell). */
  const doubted = new Set<Member<TronEndpoint>>();

  /**
   * Every ready endpoint's solidified head, read side by side, waiting at most `headWaitMs`: a
   * complete listing has handled everything up to the head its endpoint reported before it. Only
   * for the lag and the choice of endpoint: a failed read is recorded and the listing goes ahead.
   */
  async function readHeads(signal: AbortSignal): Promise<Map<Member<TronEndpoint>, { number: number; timestamp: number }>> {
    const got = new Map<Member<TronEndpoint>, { number: number; timestamp: number }>();
    const reads = deps.pool.ready().map(async (m) => {
      try {
        const head = await paced(m, signal, () => m.spec.client.solidifiedHead(signal));
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
    await Promise.race([Promise.all(reads), sleep(deps.tuning.headWaitMs ?? 2000, AbortSignal.any([signal, done.signal]))]);
    done.abort(); // the wait's timer goes with it
    return new Map(got);
  }

  /**
   * Hands one decided row to the ledger (with `checkpoint`, which already covers it). The
   * re-scan (no checkpoint) hands over rows mostly seen before: the ledger tells what is new.
   */
  async function handle(r: RowDecision, checkpoint: { key: string; value: TronCursor } | undefined): Promise<IngestOutcome | undefined> {
    const { item, row } = r;
    if (r.kind === 'reject') {
      if (checkpoint) deps.log.warn('TronGrid transfer rejected', { txid: item.txid, row, reason: r.reason });
      await deps.ledger.reject(
        { source: 'trongrid', method: deps.asset.method, ref: `trongrid:${row}`, reason: r.reason, detail: { ...r.detail, txid: item.txid, block_timestamp: item.blockTimestamp }, observedAt: deps.clock.now() },
        checkpoint,
      );
      return undefined;
    }
    const outcome = await deps.ledger.ingest(toPayment(deps.asset.method, r.item, row, deps.address, deps.contract, deps.clock.now(), r), checkpoint);
    if (checkpoint) deps.log.info('TronGrid transfer ingested', { txid: item.txid, row, amount_minor: r.amountMinor, outcome: outcome.kind });
    return outcome;
  }

  const fetchPage = (m: Member<TronEndpoint>, signal: AbortSignal) => (minTimestamp: number, fingerprint: string | undefined) =>
    paced(m, signal, () => m.spec.client.listTrc20({ address: deps.address, contract: deps.contract, minTimestamp, limit: deps.tuning.pageLimit, fingerprint }, signal));

  const confirmer = createTronConfirmer({
    pool: deps.pool,
    filter,
    pageLimit: deps.tuning.pageLimit,
    maxPages: deps.tuning.maxPagesPerTick,
    page: (m, signal, q) => paced(m, signal, () => m.spec.client.listTrc20({ address: deps.address, contract: deps.contract, limit: deps.tuning.pageLimit, ...q }, signal)),
  });

  const unconfirmed = createUnconfirmedWatch({ boundMs: deps.tuning.unconfirmedMs, clock: deps.clock });

  /**
   * The credits of `decided` that may move money now: confirmed by the quorum; the others wait,
   * logged, and one that has waited past the bound is recorded as rejected for the operator.
   */
  async function confirmed(decided: RowDecision[], items: Trc20Item[], m: Member<TronEndpoint>, signal: AbortSignal): Promise<(r: RowDecision) => boolean> {
    const verdicts = await confirmer.confirmRows(decided, items, m, signal);
    for (const [txid, verdict] of verdicts) {
      if (verdict !== 'unknown') unconfirmed.settled(txid);
      if (verdict === 'contradicted') deps.log.error('TronGrid endpoints disagree about a transfer; not settled', { txid, endpoint: m.label });
      else if (verdict === 'unknown' && unconfirmed.overdue(txid)) await rejectUnconfirmed(decided, txid, m);
      else if (verdict === 'unknown') deps.log.info('TronGrid transfer waits for a second endpoint to list it', { txid, endpoint: m.label });
    }
    return (r) => r.kind !== 'credit' || verdicts.get(r.item.txid) === 'confirmed';
  }

  /** Records each credit row of `txid`, which only `m` lists, as rejected: the wait is over, the operator is told. */
  async function rejectUnconfirmed(decided: RowDecision[], txid: string, m: Member<TronEndpoint>): Promise<void> {
    const minutes = deps.tuning.unconfirmedMs / 60_000;
    const why = `listed by ${m.label} only: no second endpoint listed it within ${minutes} minutes (a provider that has not indexed it, or one that serves a transfer the chain does not have); it moved no money`;
    deps.log.error('TronGrid transfer not confirmed by a second endpoint in time; recorded as rejected', { txid, endpoint: m.label, waited_minutes: minutes });
    for (const r of decided) {
      if (r.kind !== 'credit' || r.item.txid !== txid) continue;
      await deps.ledger.reject({
        source: 'trongrid',
        method: deps.asset.method,
        ref: `trongrid:${r.row}`,
        reason: 'unconfirmed_transfer',
        detail: { txid, row: r.row, from: r.item.from, amount_minor: r.amountMinor.toString(), block_timestamp: r.item.blockTimestamp, endpoint: m.label, why },
        observedAt: deps.clock.now(),
      });
    }
  }

  /**
   * Lists everything since the checkpoint on `m` and hands each new transfer to the ledger with its
   * checkpoint: `complete` when the listing completed, `fresh` the rows handed over. Rows past the
   * agreed head's block time or the wall clock are left for a later listing, and the watermark
   * never passes them.
   */
  async function sweep(m: Member<TronEndpoint>, signal: AbortSignal): Promise<{ complete: boolean; fresh: number }> {
    let cursor = await loadCursor();
    const cap = Math.min(deps.pool.agreedHead()?.time ?? Infinity, deps.clock.now() + CLOCK_SKEW_MS);
    let fresh = 0;
    let ascending = true;
    let newest: number | undefined;
    const rows = rowKeys();
    let handled = 0;
    const { complete } = await walkPages({
      fetchPage: fetchPage(m, signal),
      filter,
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
        const settles = await confirmed(decided, items, m, signal);
        for (const r of decided) {
          // Not marked seen: listed (and asked about) again while the overlap or the re-scan covers it.
          if (!settles(r)) continue;
          const next = markSeen(cursor, r.row, r.item.blockTimestamp, deps.tuning.overlapMs, ascending, cap);
          await handle(r, { key, value: next });
          fresh += 1;
          cursor = next;
        }
      },
    });
    if (!complete || signal.aborted) return { complete: false, fresh }; // more pages wait; not caught up yet
    const done = completeListing(cursor, newest, deps.tuning.overlapMs, cap);
    if (done !== cursor) await deps.ledger.saveCheckpoint({ key, value: done });
    caughtUpAt = deps.clock.now();
    return { complete: true, fresh };
  }

  const rescan = createRescan({
    key: `${key}:rescan`,
    ledger: deps.ledger,
    clock: deps.clock,
    log: deps.log,
    tuning: deps.tuning,
    filter,
    walk: (m, signal) => fetchPage(m, signal),
    confirmed,
    handle: async (r) => {
      const outcome = await handle(r, undefined);
      return outcome !== undefined && outcome.kind !== 'duplicate';
    },
    address: deps.address,
  });

  /**
   * The endpoints to list on, in turn: those whose head answered this cycle and is believed (at the
   * newest head before trailing, then by health), then the others (a resting, slow or suspect one
   * only when nothing else serves).
   */
  function candidates(answered: Map<Member<TronEndpoint>, unknown>): Member<TronEndpoint>[] {
    const order = deps.pool.order();
    return [...order.filter((m) => answered.has(m)), ...order.filter((m) => !answered.has(m))];
  }

  /** One cycle. Throws on upstream faults (of every endpoint) so the loop backs off. */
  async function tick(signal: AbortSignal): Promise<void> {
    const open = await deps.ledger.hasOpenIntents(deps.asset.method, deps.address);
    const report = cycleReporterOf(signal);
    if (open || caughtUpAt === undefined || deps.clock.now() - caughtUpAt >= deps.tuning.idleSweepMs) {
      const got = await readHeads(signal);
      const errors: { label: string; error: unknown }[] = [];
      let served: Member<TronEndpoint> | undefined;
      let fresh = 0;
      const order = candidates(got);
      for (const m of order) {
        const head = got.get(m);
        try {
          const swept = await sweep(m, signal);
          if (swept.complete) {
            const asOf = head ? heads.asOf(head.number) : undefined;
            if (asOf !== undefined) report?.caughtUp?.(asOf);
          }
          served = m;
          fresh = swept.fresh;
          break;
        } catch (err) {
          if (signal.aborted) throw err;
          errors.push({ label: m.label, error: err });
          if (deps.pool.members.length > 1) deps.log.warn('TronGrid endpoint failed; trying the next', { endpoint: m.label, error: describeError(err) });
        }
      }
      if (!served) throw errors.length === 1 ? errors[0]!.error : new AllEndpointsFailed('TronGrid', errors);
      const ready = deps.pool.ready();
      const others = order.filter((m) => m !== served && ready.includes(m) && deps.pool.believed(m));
      // Nothing new on the first endpoint: a second may show what it does not (it lags, or withholds).
      if (fresh === 0 && others[0]) {
        try {
          await sweep(others[0], signal);
        } catch (err) {
          if (signal.aborted) throw err;
          deps.log.warn('TronGrid second endpoint failed', { endpoint: others[0].label, error: describeError(err) });
        }
      }
      // Only once caught up, so the start-up catch-up is not delayed by a second listing. On another
      // endpoint than the sweep's: what one endpoint withholds, another shows.
      if (caughtUpAt !== undefined) await rescan.run(others[0] ?? served, signal);
      return;
    }
    // Nothing could settle and the backlog is swept: save the calls. An intent created now is
    // listed on the next tick, so nothing waits behind the head meanwhile.
    report?.caughtUp?.(deps.clock.now());
    if (caughtUpAt !== undefined) {
      const m = deps.pool.order()[0];
      if (m) await rescan.run(m, signal);
    }
  }

  return { key, tick };
}

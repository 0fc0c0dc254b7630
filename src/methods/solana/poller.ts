/**
 * One polling cycle for one receiving account: list signatures since the checkpoint,
 * fetch each transaction oldest first at the configured commitment, adapt it, and
 * hand it to the ledger together with the checkpoint that covers it.
 *
 * With several RPC endpoints, one cycle reads every ready endpoint's slot, then lists and reads
 * on the healthiest (another takes over within the cycle when it fails). The checkpoint is a
 * signature and its slot, which mean the same on every endpoint: one that trails does not know
 * a newer checkpoint's signature and lists what it has, which the slot filter drops (signatures.ts);
 * a signature ingested through two endpoints is recorded once (the ledger's unique reference).
 */
import type { ConfirmedSignatureInfo, Connection, Finality } from '@solana/web3.js';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { formatMinor } from '../../domain/money.ts';
import { SOL_DECIMALS, USDT_SPL_DECIMALS } from './units.ts';
import { createHeadWatch } from '../../domain/head-watch.ts';
import { cycleReporterOf } from '../../workers/cycle.ts';
import { describeError, sleep } from '../../workers/loop.ts';
import { AllEndpointsFailed, type EndpointSpec, type Member, type UpstreamPool } from '../upstream-pool.ts';
import { adaptTransaction, type WatchTarget } from './adapt.ts';
import { listRecent, listSince, type Checkpoint } from './signatures.ts';
import { isUnreadableTransaction, MAX_TRANSACTION_VERSION } from './versions.ts';

/** One RPC endpoint and its Connection. */
export interface SolanaEndpoint extends EndpointSpec {
  conn: Connection;
}

export interface PollerOptions {
  pool: UpstreamPool<SolanaEndpoint>;
  /** How long a cycle waits for the endpoints' slots before listing on one that answered, ms. */
  headWaitMs?: number;
  target: WatchTarget;
  commitment: Finality;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** Signatures per getSignaturesForAddress page (≤ 1000). */
  pageLimit: number;
  maxPages: number;
  /** With no checkpoint yet, transactions older than this are not examined, ms. */
  firstStartLookbackMs: number;
  /** With no open intent, scan at most this often (payments still recorded as unmatched), ms. */
  idleScanMs: number;
  /** A listed transaction the node will not return is retried this many cycles, then set aside. */
  maxUnavailableCycles: number;
}

export const checkpointKey = (t: WatchTarget): string => `solana:${t.method}:${t.account}`;

export function createPoller(o: PollerOptions): { tick(signal: AbortSignal): Promise<void> } {
  const key = checkpointKey(o.target);
  const unavailable = new Map<string, number>();
  let lastScanAt: number | undefined;

  /** One batch of signatures to work through, in order, and the checkpoint each one leaves. */
  interface Batch {
    list: ConfirmedSignatureInfo[];
    at(info: ConfirmedSignatureInfo): Checkpoint;
    /** Checkpoint once the whole batch is done (the backlog's top), if not simply the last `at`. */
    done?: Checkpoint;
    /** Progress to save even if the batch pays nothing (first start passing over older entries). */
    skipped?: Checkpoint;
    /** A backlog that continues next cycle: done with this batch is not caught up. */
    partial?: boolean;
  }

  const plain = (info: ConfirmedSignatureInfo): Checkpoint => ({ signature: info.signature, slot: info.slot });

  async function pending(conn: Connection): Promise<Batch> {
    const list = { commitment: o.commitment, limit: o.pageLimit, maxPages: o.maxPages };
    const cp = await o.ledger.loadCheckpoint<Checkpoint>(key);
    if (cp?.backlog) return backlog(cp, cp.backlog.top, await listSince(conn, o.target.account, cp, { ...list, before: cp.backlog.before }));
    if (cp) {
      const since = await listSince(conn, o.target.account, cp, list);
      if (since.complete) return { list: since.list.reverse(), at: plain };
      const top = since.list[0];
      o.log.warn('solana backlog longer than one cycle lists; working through it newest first across cycles', { account: o.target.account, listed: since.list.length });
      return backlog(cp, { signature: top.signature, slot: top.slot }, since);
    }
    const { all, recent } = await listRecent(conn, o.target.account, { ...list, notBeforeMs: o.clock.now() - o.firstStartLookbackMs });
    if (all.length > 0) o.log.info('solana first start', { account: o.target.account, examined: recent.length, older_ignored: all.length - recent.length });
    // Older entries are passed over, but the checkpoint still moves past them.
    const newestOld = all.find((s) => !recent.includes(s));
    return { list: recent.reverse(), at: plain, skipped: newestOld && plain(newestOld) };
  }

  /** Newest first; each entry done moves `before` down; reaching the checkpoint makes `top` the checkpoint. */
  function backlog(cp: Checkpoint, top: { signature: string; slot: number }, got: { list: ConfirmedSignatureInfo[]; complete: boolean }): Batch {
    return {
      list: got.list,
      at: (info) => ({ signature: cp.signature, slot: cp.slot, backlog: { top, before: info.signature } }),
      done: got.complete ? top : undefined,
      partial: !got.complete,
    };
  }

  const heads = createHeadWatch();
  /**
   * Every ready endpoint's slot at the commitment, side by side, waiting at most `headWaitMs`:
   * a complete scan has handled everything up to the slot its endpoint reported before it.
   */
  async function readHeads(signal: AbortSignal): Promise<Map<Member<SolanaEndpoint>, number | { error: unknown }>> {
    const got = new Map<Member<SolanaEndpoint>, number | { error: unknown }>();
    const reads = o.pool.ready().map(async (m) => {
      try {
        const slot = await m.spec.conn.getSlot(o.commitment);
        o.pool.observeHead(m, slot);
        heads.observe(slot, o.clock.now());
        got.set(m, slot);
      } catch (err) {
        got.set(m, { error: err });
      }
    });
        const done = new AbortController();
    await Promise.race([Promise.all(reads), sleep(o.headWaitMs ?? 2000, AbortSignal.any([signal, done.signal]))]);
    done.abort(); // the wait's timer goes with it
    return new Map(got);
  }

  async function tick(signal: AbortSignal): Promise<void> {
    const now = o.clock.now();
    const report = cycleReporterOf(signal);
    if (lastScanAt !== undefined && now - lastScanAt < o.idleScanMs && !(await o.ledger.hasOpenIntents(o.target.method, o.target.wallet))) {
      // Nothing could settle: an intent created now is scanned for on the next tick.
      report?.caughtUp?.(now);
      return;
    }
    const got = await readHeads(signal);
    // Endpoints whose slot answered first (ahead before behind, then by health); the others only when those fail.
    const order = o.pool.order();
    const errors: { label: string; error: unknown }[] = [];
    const answered = (x: Member<SolanaEndpoint>) => typeof got.get(x) === 'number';
    for (const m of [...order.filter(answered), ...order.filter((x) => !answered(x))]) {
      try {
        // Every Solana RPC serves getSlot: one that failed it (429, timeout) fails the listing too.
        // One whose slot did not answer in time (or that was resting) is asked now.
        const read = got.get(m);
        if (typeof read === 'object') throw read.error;
        let slot = read;
        if (slot === undefined) {
          slot = await m.spec.conn.getSlot(o.commitment);
          o.pool.observeHead(m, slot);
          heads.observe(slot, o.clock.now());
        }
        const complete = await scan(m.spec.conn, signal);
        lastScanAt = now; // only a completed scan counts; a failed one is retried on the next tick
        const asOf = heads.asOf(slot);
        if (complete && asOf !== undefined) report?.caughtUp?.(asOf);
        return;
      } catch (err) {
        if (signal.aborted) throw err;
        errors.push({ label: m.label, error: err });
        if (o.pool.members.length > 1) o.log.warn('solana endpoint failed; trying the next', { endpoint: m.label, error: describeError(err) });
      }
    }
    throw errors.length === 1 ? errors[0]!.error : new AllEndpointsFailed('Solana RPC', errors);
  }

  /** True when everything listed was worked through (not a backlog that continues, not waiting on a transaction). */
  async function scan(conn: Connection, signal: AbortSignal): Promise<boolean> {
    const batch = await pending(conn);
    // Progress past transactions that pay nothing is saved once, after the batch (or on failure).
    let unsaved: Checkpoint | undefined = batch.skipped;
    let finished = false;
    try {
      for (const info of batch.list) {
        if (signal.aborted) return false;
        const at = batch.at(info);
        if (info.err != null) {
          unsaved = at; // failed on chain: nothing to fetch, never counts
          continue;
        }
        const read = await readTransaction(conn, info);
        if (read.kind === 'unreadable') {
          // One transaction must never stop the source: record it and move past it.
          await unreadable(info, read.error, at);
          unsaved = undefined;
          continue;
        }
        const tx = read.tx;
        if (!tx) {
          if (!(await setAside(info))) return false; // try again next cycle, without moving past it
          unsaved = at;
          continue;
        }
        let adapted: ReturnType<typeof adaptTransaction>;
        try {
          adapted = adaptTransaction(tx, info.signature, o.target, o.clock.now());
        } catch (err) {
          await unreadable(info, err, at);
          unsaved = undefined;
          continue;
        }
        if (adapted.kind === 'skip') {
          unsaved = at;
          continue;
        }
        const outcome = await o.ledger.ingest(adapted.payment, { key, value: at });
        unsaved = undefined;
        o.log.info('solana payment ingested', {
          tx: info.signature,
          amount: formatMinor(adapted.payment.amountMinor, o.target.method === 'SOL' ? SOL_DECIMALS : USDT_SPL_DECIMALS),
          outcome: outcome.kind,
        });
      }
      finished = true;
      return !batch.partial;
    } finally {
      if (finished && batch.done) {
        await o.ledger.saveCheckpoint({ key, value: batch.done });
        o.log.info('solana backlog worked through', { account: o.target.account, checkpoint: batch.done.signature });
      } else if (unsaved) await o.ledger.saveCheckpoint({ key, value: unsaved });
    }
  }

  type Read = { kind: 'tx'; tx: Awaited<ReturnType<Connection['getParsedTransaction']>> } | { kind: 'unreadable'; error: unknown };

  /** Transport faults and rate limits throw (the loop backs off); an unreadable transaction is an answer. */
  async function readTransaction(conn: Connection, info: ConfirmedSignatureInfo): Promise<Read> {
    try {
      return { kind: 'tx', tx: await conn.getParsedTransaction(info.signature, { maxSupportedTransactionVersion: MAX_TRANSACTION_VERSION, commitment: o.commitment }) };
    } catch (err) {
      if (isUnreadableTransaction(err)) return { kind: 'unreadable', error: err };
      throw err;
    }
  }

  async function unreadable(info: ConfirmedSignatureInfo, err: unknown, at: Checkpoint): Promise<void> {
    const error = err instanceof Error ? err.message : String(err);
    o.log.error('solana transaction cannot be read; recorded and passed over', { tx: info.signature, error });
    await o.ledger.reject(
      {
        source: 'solana',
        method: o.target.method,
        ref: `solana:${info.signature}`,
        reason: 'unsupported_transaction',
        detail: { signature: info.signature, slot: info.slot, account: o.target.account, error: error.slice(0, 500) },
        observedAt: o.clock.now(),
      },
      { key, value: at },
    );
  }

  /** Returns true once a transaction the node keeps not returning has been set aside for the operator. */
  async function setAside(info: ConfirmedSignatureInfo): Promise<boolean> {
    const seen = (unavailable.get(info.signature) ?? 0) + 1;
    unavailable.set(info.signature, seen);
    if (seen < o.maxUnavailableCycles) {
      o.log.debug('solana transaction listed but not yet returned', { tx: info.signature, cycles: seen });
      return false;
    }
    unavailable.delete(info.signature);
    o.log.error('solana transaction unavailable; set aside', { tx: info.signature, cycles: seen });
    await o.ledger.reject({
      source: 'solana',
      method: o.target.method,
      ref: `solana:${info.signature}`,
      reason: 'transaction_unavailable',
      detail: { slot: info.slot, account: o.target.account },
      observedAt: o.clock.now(),
    });
    return true;
  }

  return { tick };
}

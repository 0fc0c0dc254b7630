/**
 * One polling cycle for one receiving account: list signatures since the checkpoint,
 * fetch each transaction oldest first at the configured commitment, adapt it, and
 * hand it to the ledger together with the checkpoint that covers it.
 *
 * With several RPC endpoints, one cycle reads every ready endpoint's slot, then lists and reads
 * on the one at the newest believable slot, by health (another takes over within the cycle when it
 * fails; a second one scans too when the first hands nothing new). The checkpoint is a signature
 * and its slot, which mean the same on every endpoint: one that trails does not know a newer
 * checkpoint's signature and lists what it has, which the slot filter drops (signatures.ts); a
 * signature ingested through two endpoints is recorded once (the ledger's unique reference).
 *
 * No endpoint's word alone moves money or the checkpoint: signatures past the agreed slot or dated
 * past the wall clock wait for a later cycle; a payment is handed to the ledger only once the
 * pool's quorum of endpoints return it alike (a scan stops before one that is not confirmed yet);
 * and the checkpoint is saved at a passed-over signature only once another endpoint returns it too.
 */
import type { ConfirmedSignatureInfo, Finality } from '@solana/web3.js';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { formatMinor } from '../../domain/money.ts';
import { cycleReporterOf } from '../../runtime/cycle.ts';
import { describeError } from '../../domain/errors.ts';
import { AllEndpointsFailed, CLOCK_SKEW_MS, type Member, type UpstreamPool, type Verdict } from '../upstream-pool.ts';
import type { ReceivedPayment } from '../../domain/payment.ts';
import { adaptTransaction, type WatchTarget } from './adapt.ts';
import { pending } from './backlog.ts';
import { createHeads } from './heads.ts';
import type { SolanaEndpoint } from './rpc.ts';
import type { Checkpoint } from './signatures.ts';
import { createTransactionReads } from './transactions.ts';

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

/** The same money to the same place: what a second endpoint must return for a payment to settle. */
function samePayment(a: ReceivedPayment, b: ReceivedPayment): boolean {
  return a.amountMinor === b.amountMinor && a.receiver === b.receiver && a.txRef === b.txRef && a.occurredAt === b.occurredAt && JSON.stringify(a.references ?? []) === JSON.stringify(b.references ?? []);
}

export const checkpointKey = (t: WatchTarget): string => `solana:${t.method}:${t.account}`;

export function createPoller(o: PollerOptions): { tick(signal: AbortSignal): Promise<void> } {
  const key = checkpointKey(o.target);
  let lastScanAt: number | undefined;

  const heads = createHeads(o);
  const { readTransaction, unreadable, setAside } = createTransactionReads(o, key);

  async function tick(signal: AbortSignal): Promise<void> {
    const now = o.clock.now();
    const report = cycleReporterOf(signal);
    if (lastScanAt !== undefined && now - lastScanAt < o.idleScanMs && !(await o.ledger.hasOpenIntents(o.target.method, o.target.wallet))) {
      // Nothing could settle: an intent created now is scanned for on the next tick.
      report?.caughtUp?.(now);
      return;
    }
    const got = await heads.readHeads(signal);
    // Endpoints whose slot answered first (at the newest believable slot before trailing before
    // suspect, then by health); the others only when those fail.
    const order = o.pool.order();
    const errors: { label: string; error: unknown }[] = [];
    const answered = (x: Member<SolanaEndpoint>) => typeof got.get(x) === 'number';
    const candidates = [...order.filter(answered), ...order.filter((x) => !answered(x))];
    for (const m of candidates) {
      try {
        // Every Solana RPC serves getSlot: one that failed it (429, timeout) fails the listing too.
        // One whose slot did not answer in time (or that was resting) is asked now.
        const read = got.get(m);
        if (typeof read === 'object') throw read.error;
        let slot = read;
        if (slot === undefined) slot = await heads.readHead(m);
        const scanned = await scan(m, signal);
        lastScanAt = now; // only a completed scan counts; a failed one is retried on the next tick
        const asOf = heads.asOf(slot);
        if (scanned.complete && asOf !== undefined) report?.caughtUp?.(asOf);
        // Nothing new here: a second endpoint may show what this one does not (it lags, or withholds).
        const ready = o.pool.ready();
        const second = scanned.fresh === 0 ? candidates.find((x) => x !== m && typeof got.get(x) !== 'object' && ready.includes(x) && (got.get(x) === undefined || o.pool.believed(x))) : undefined;
        if (second) {
          try {
            // A slot that did not answer in time is asked now: a suspect endpoint never scans second.
            if (got.get(second) === undefined) await heads.readHead(second);
            if (o.pool.believed(second)) await scan(second, signal);
          } catch (err) {
            if (signal.aborted) throw err;
            o.log.warn('solana second endpoint failed', { endpoint: second.label, error: describeError(err) });
          }
        }
        return;
      } catch (err) {
        if (signal.aborted) throw err;
        errors.push({ label: m.label, error: err });
        if (o.pool.members.length > 1) o.log.warn('solana endpoint failed; trying the next', { endpoint: m.label, error: describeError(err) });
      }
    }
    throw errors.length === 1 ? errors[0]!.error : new AllEndpointsFailed('Solana RPC', errors);
  }

  /**
   * What another endpoint says about a transaction `m` served: `same` when it returns it with the
   * same payment (or, for one that pays nothing, in the same slot with the same outcome).
   */
  const askAbout =
    (info: ConfirmedSignatureInfo, payment: ReceivedPayment | undefined) =>
    async (other: Member<SolanaEndpoint>): Promise<Verdict> => {
      const read = await readTransaction(other.spec.conn, info);
      if (read.kind === 'unreadable' || !read.tx) return 'unknown';
      if (read.tx.slot !== info.slot || (read.tx.meta?.err == null) !== (info.err == null)) return 'differs';
      if (payment === undefined) return 'same';
      let theirs: ReturnType<typeof adaptTransaction>;
      try {
        theirs = adaptTransaction(read.tx, info.signature, o.target, payment.observedAt);
      } catch {
        return 'differs';
      }
      return theirs.kind === 'payment' && samePayment(theirs.payment, payment) ? 'same' : 'differs';
    };

  /**
   * Works through what `m` lists since the checkpoint. `complete`: everything listed was worked
   * through (not a backlog that continues, not waiting on a transaction); `fresh`: how many
   * transactions were handed to the ledger.
   */
  async function scan(m: Member<SolanaEndpoint>, signal: AbortSignal): Promise<{ complete: boolean; fresh: number }> {
    const conn = m.spec.conn;
    const agreed = o.pool.agreedHead()?.head ?? Infinity;
    const latest = o.clock.now() + CLOCK_SKEW_MS;
    const batch = await pending(conn, o, key, (info) => info.slot <= agreed && (info.blockTime == null || info.blockTime * 1000 <= latest));
    let fresh = 0;
    // Progress past transactions that pay nothing is saved once, after the batch (or on failure).
    let unsaved: Checkpoint | undefined = batch.skipped;
    let finished = false;
    try {
      for (const info of batch.list) {
        if (signal.aborted) return { complete: false, fresh };
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
          fresh += 1;
          continue;
        }
        const tx = read.tx;
        if (!tx) {
          if (!(await setAside(info))) return { complete: false, fresh }; // try again next cycle, without moving past it
          unsaved = at;
          continue;
        }
        let adapted: ReturnType<typeof adaptTransaction>;
        try {
          adapted = adaptTransaction(tx, info.signature, o.target, o.clock.now());
        } catch (err) {
          await unreadable(info, err, at);
          unsaved = undefined;
          fresh += 1;
          continue;
        }
        if (adapted.kind === 'skip') {
          unsaved = at;
          continue;
        }
        const verdict = await o.pool.confirm(m, askAbout(info, adapted.payment));
        if (verdict !== 'confirmed') {
          // Not moved past: asked about again next cycle (a lagging endpoint catches up; a fabrication never does).
          if (verdict === 'contradicted') o.log.error('solana endpoints disagree about a transaction; not settled', { tx: info.signature, endpoint: m.label });
          else o.log.info('solana transaction waits for a second endpoint to return it', { tx: info.signature, endpoint: m.label });
          return { complete: false, fresh };
        }
        const outcome = await o.ledger.ingest(adapted.payment, { key, value: at });
        unsaved = undefined;
        fresh += 1;
        o.log.info('solana payment ingested', {
          tx: info.signature,
          amount: formatMinor(adapted.payment.amountMinor, o.target.decimals),
          outcome: outcome.kind,
        });
      }
      finished = true;
      return { complete: !batch.partial, fresh };
    } finally {
      if (finished && batch.done) {
        await o.ledger.saveCheckpoint({ key, value: batch.done });
        o.log.info('solana backlog worked through', { account: o.target.account, checkpoint: batch.done.signature });
      } else if (unsaved && (unsaved.backlog || (await passable(m, unsaved)))) await o.ledger.saveCheckpoint({ key, value: unsaved });
    }
  }

  /**
   * Whether the checkpoint may move to `cp`, a signature that paid nothing (failed, or not to us):
   * once another endpoint returns it in the same slot, or the pool needs no second word. Else
   * progress past it waits: a signature only one endpoint lists must not hide the ones before it.
   */
  async function passable(m: Member<SolanaEndpoint>, cp: Checkpoint): Promise<boolean> {
    if (o.pool.quorum <= 1) return true;
    const info = { signature: cp.signature, slot: cp.slot, err: null, memo: null, blockTime: null } as ConfirmedSignatureInfo;
    const verdict = await o.pool.confirm(m, async (other) => {
      const read = await readTransaction(other.spec.conn, info);
      return read.kind === 'unreadable' ? 'same' : !read.tx ? 'unknown' : read.tx.slot === cp.slot ? 'same' : 'differs';
    });
    return verdict === 'confirmed';
  }

  return { tick };
}

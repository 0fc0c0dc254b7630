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
 * the checkpoint is saved at a passed-over signature only once another endpoint returns it too;
 * with a quorum of two or more, another endpoint lists the same stretch and what only it lists is
 * worked through too (witness.ts), so the checkpoint never passes a signature the serving endpoint
 * left out; and the deep re-scan (rescan.ts) lists recent signatures again on another endpoint.
 */
import type { ConfirmedSignatureInfo, Finality } from '@solana/web3.js';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { formatMinor } from '../../domain/money.ts';
import { cycleReporterOf } from '../../runtime/cycle.ts';
import { describeError } from '../../domain/errors.ts';
import { AllEndpointsFailed, type UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import { CLOCK_SKEW_MS } from '../upstream-heads.ts';
import { adaptTransaction, type WatchTarget } from './adapt.ts';
import { pending } from './backlog.ts';
import { createSolanaConfirmer } from './confirm.ts';
import { createHeads } from './heads.ts';
import { createSolanaRescan } from './rescan.ts';
import type { SolanaEndpoint } from './rpc.ts';
import type { Checkpoint } from './signatures.ts';
import { createTransactionReads } from './transactions.ts';
import { witness } from './witness.ts';

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
  /** The deep re-scan: how often, and how far back (ms). */
  rescan: { everyMs: number; windowMs: number };
}

export const checkpointKey = (t: WatchTarget): string => `solana:${t.method}:${t.account}`;

export function createPoller(options: PollerOptions): { tick(signal: AbortSignal): Promise<void> } {
  const key = checkpointKey(options.target);
  let lastScanAt: number | undefined;

  const heads = createHeads(options);
  const { readTransaction, unreadable, setAside } = createTransactionReads(options, key);
  const confirmer = createSolanaConfirmer({ target: options.target, readTransaction });
  /** Signatures that may be worked through now: at most the agreed slot, not dated past the wall clock. */
  const within = () => {
    const agreed = options.pool.agreedHead()?.head ?? Infinity;
    const latest = options.clock.now() + CLOCK_SKEW_MS;
    return (info: ConfirmedSignatureInfo) => info.slot <= agreed && (info.blockTime == null || info.blockTime * 1000 <= latest);
  };
  const rescan = createSolanaRescan(
    { ...options, rescanMs: options.rescan.everyMs, windowMs: options.rescan.windowMs },
    { key: `${key}:rescan`, readTransaction, confirmer, within: (info) => within()(info) },
  );

  /** The re-scan, on `m`; its failure is logged, not the cycle's (the sweep itself went through). */
  async function rescanOn(m: Member<SolanaEndpoint> | undefined, signal: AbortSignal): Promise<void> {
    if (!m) return;
    try {
      await rescan.run(m, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      options.log.warn('solana re-scan failed; it runs again next cycle', { endpoint: m.label, error: describeError(err) });
    }
  }

  async function tick(signal: AbortSignal): Promise<void> {
    const now = options.clock.now();
    const report = cycleReporterOf(signal);
    if (lastScanAt !== undefined && now - lastScanAt < options.idleScanMs && !(await options.ledger.hasOpenIntents(options.target.method, options.target.wallet))) {
      // Nothing could settle: an intent created now is scanned for on the next tick.
      report?.caughtUp?.(now);
      await rescanOn(options.pool.order()[0], signal);
      return;
    }
    const got = await heads.readHeads(signal);
    // Endpoints whose slot answered first (at the newest believable slot before trailing before
    // suspect, then by health); the others only when those fail.
    const order = options.pool.order();
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
        // Nothing new here: a second endpoint may show what this one does not (it lags, or withholds),
        // unless one already listed this stretch beside it (a witness) and everything was worked through.
        const ready = options.pool.ready();
        const second = scanned.fresh === 0 && !(scanned.witnessed && scanned.complete) ? candidates.find((x) => x !== m && typeof got.get(x) !== 'object' && ready.includes(x) && (got.get(x) === undefined || options.pool.believed(x))) : undefined;
        if (second) {
          try {
            // A slot that did not answer in time is asked now: a suspect endpoint never scans second.
            if (got.get(second) === undefined) await heads.readHead(second);
            if (options.pool.believed(second)) await scan(second, signal);
          } catch (err) {
            if (signal.aborted) throw err;
            options.log.warn('solana second endpoint failed', { endpoint: second.label, error: describeError(err) });
          }
        }
        // On another endpoint than the one that served: what one withholds, another shows.
        await rescanOn(candidates.find((x) => x !== m && ready.includes(x) && options.pool.believed(x)) ?? m, signal);
        return;
      } catch (err) {
        if (signal.aborted) throw err;
        errors.push({ label: m.label, error: err });
        if (options.pool.members.length > 1) options.log.warn('solana endpoint failed; trying the next', { endpoint: m.label, error: describeError(err) });
      }
    }
    throw errors.length === 1 ? errors[0]!.error : new AllEndpointsFailed('Solana RPC', errors);
  }

  /**
   * Works through what `m` lists since the checkpoint, with what a witness lists of the same
   * stretch. `complete`: everything listed was worked through (not a backlog that continues, not
   * waiting on a transaction); `fresh`: how many transactions were handed to the ledger;
   * `witnessed`: another endpoint listed the stretch too.
   */
  async function scan(m: Member<SolanaEndpoint>, signal: AbortSignal): Promise<{ complete: boolean; fresh: number; witnessed: boolean }> {
    const ok = within();
    const listed = await pending(m.spec.conn, options, key, ok);
    const seen = await witness(options, m, listed, (w) => pending(w.spec.conn, options, key, ok), signal);
    if (!seen) {
      // Nothing of this stretch is agreed: working through it could move the checkpoint past a withheld payment.
      options.log.warn('solana: no second endpoint lists the account; the checkpoint waits', { endpoint: m.label });
      return { complete: false, fresh: 0, witnessed: false };
    }
    const { batch, extra } = seen;
    const witnessed = options.pool.quorum > 1 && batch.kind !== 'backlog';
    let fresh = 0;
    // Progress past transactions that pay nothing is saved once, after the batch (or on failure),
    // once an endpoint other than the one that listed it returns it too.
    let unsaved: { at: Checkpoint; by: Member<SolanaEndpoint> } | undefined = batch.skipped && { at: batch.skipped, by: m };
    let finished = false;
    try {
      for (const info of batch.list) {
        if (signal.aborted) return { complete: false, fresh, witnessed };
        const at = batch.at(info);
        // What only the witness listed is read from it; the serving endpoint's word is asked like any other's.
        const by = extra.get(info.signature) ?? m;
        if (info.err != null) {
          unsaved = { at, by }; // failed on chain: nothing to fetch, never counts
          rescan.worked(info);
          continue;
        }
        const read = await readTransaction(by.spec.conn, info);
        if (read.kind === 'unreadable') {
          // One transaction must never stop the source: record it and move past it.
          await unreadable(info, read.error, at);
          rescan.worked(info);
          unsaved = undefined;
          fresh += 1;
          continue;
        }
        const tx = read.tx;
        if (!tx) {
          if (by !== m) continue; // the witness's to return: the re-scan asks again
          if (!(await setAside(info))) return { complete: false, fresh, witnessed }; // try again next cycle, without moving past it
          unsaved = { at, by };
          continue;
        }
        let adapted: ReturnType<typeof adaptTransaction>;
        try {
          adapted = adaptTransaction(tx, info.signature, options.target, options.clock.now());
        } catch (err) {
          await unreadable(info, err, at);
          rescan.worked(info);
          unsaved = undefined;
          fresh += 1;
          continue;
        }
        if (adapted.kind === 'skip') {
          unsaved = { at, by };
          rescan.worked(info);
          continue;
        }
        const verdict = await options.pool.confirm(by, confirmer.askAbout(info, adapted.payment));
        if (verdict !== 'confirmed') {
          if (verdict === 'contradicted') options.log.error('solana endpoints disagree about a transaction; not settled', { tx: info.signature, endpoint: by.label });
          else options.log.info('solana transaction waits for a second endpoint to return it', { tx: info.signature, endpoint: by.label });
          // What only the witness shows and no other endpoint returns is not agreed: passed over
          // here, not settled; the re-scan asks about it again.
          if (by !== m) continue;
          // Not moved past: asked about again next cycle (a lagging endpoint catches up; a fabrication never does).
          return { complete: false, fresh, witnessed };
        }
        const outcome = await options.ledger.ingest(adapted.payment, { key, value: at });
        rescan.worked(info);
        unsaved = undefined;
        fresh += 1;
        options.log.info('solana payment ingested', {
          tx: info.signature,
          amount: formatMinor(adapted.payment.amountMinor, options.target.decimals),
          outcome: outcome.kind,
          ...(by !== m ? { listed_by: by.label } : {}),
        });
      }
      finished = true;
      return { complete: !batch.partial, fresh, witnessed };
    } finally {
      if (finished && batch.done) {
        await options.ledger.saveCheckpoint({ key, value: batch.done });
        options.log.info('solana backlog worked through', { account: options.target.account, checkpoint: batch.done.signature });
      } else if (unsaved && (unsaved.at.backlog || (await passable(unsaved.by, unsaved.at)))) await options.ledger.saveCheckpoint({ key, value: unsaved.at });
    }
  }

  /**
   * Whether the checkpoint may move to `cp`, a signature that paid nothing (failed, or not to us),
   * listed by `by`: once another endpoint returns it in the same slot, or the pool needs no second
   * word. Else progress past it waits: a signature only one endpoint lists must not hide the ones before it.
   */
  async function passable(by: Member<SolanaEndpoint>, cp: Checkpoint): Promise<boolean> {
    if (options.pool.quorum <= 1) return true;
    return (await options.pool.confirm(by, confirmer.askAboutCheckpoint(cp))) === 'confirmed';
  }

  return { tick };
}

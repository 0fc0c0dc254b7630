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
import type { Connection, Finality } from '@solana/web3.js';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { formatMinor } from '../../domain/money.ts';
import { cycleReporterOf } from '../../runtime/cycle.ts';
import { describeError } from '../../domain/errors.ts';
import { AllEndpointsFailed, type Member, type UpstreamPool } from '../upstream-pool.ts';
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
        if (slot === undefined) slot = await heads.readHead(m);
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
    const batch = await pending(conn, o, key);
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
          amount: formatMinor(adapted.payment.amountMinor, o.target.decimals),
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

  return { tick };
}

/**
 * Deep re-scan: every `rescanMs`, the account's newest page of signatures (those of the last
 * `windowMs`) is listed again on another endpoint than the one that served the sweep, and every
 * transaction the sweep did not work through is read, confirmed like any other (the pool's quorum)
 * and handed to the ledger, which records only what it does not have yet. It finds what the
 * serving endpoint withheld behind a checkpoint that has moved on (with a quorum of one, or a
 * witness that did not answer in time), and what one endpoint listed before the others returned it.
 * The sweep's checkpoint is not touched; the run's time is kept beside it, so a restart does not
 * make it run early. One listing per run, whatever the number of intents; transactions the sweep
 * already worked through (in this process) are not read again.
 */
import type { ConfirmedSignatureInfo, Finality } from '@solana/web3.js';
import { PublicKey } from '@solana/web3.js';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { formatMinor } from '../../domain/money.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import { adaptTransaction, type WatchTarget } from './adapt.ts';
import type { createSolanaConfirmer } from './confirm.ts';
import type { SolanaEndpoint } from './rpc.ts';
import type { Read } from './transactions.ts';

export interface RescanOptions {
  pool: UpstreamPool<SolanaEndpoint>;
  target: WatchTarget;
  commitment: Finality;
  ledger: Pick<Ledger, 'ingest' | 'loadCheckpoint' | 'saveCheckpoint'>;
  clock: Clock;
  log: Logger;
  pageLimit: number;
  /** How often, ms. */
  rescanMs: number;
  /** How far back, ms (by block time): the newest page, and within it this window. */
  windowMs: number;
}

/** Kept beside the sweep's checkpoint: when the last run completed. */
interface RescanState {
  v: 1;
  at: number;
}

const readState = (raw: unknown): RescanState | undefined =>
  typeof raw === 'object' && raw !== null && (raw as RescanState).v === 1 && typeof (raw as RescanState).at === 'number' ? (raw as RescanState) : undefined;

export function createSolanaRescan(
  options: RescanOptions,
  deps: {
    key: string;
    readTransaction(conn: SolanaEndpoint['conn'], info: ConfirmedSignatureInfo): Promise<Read>;
    confirmer: ReturnType<typeof createSolanaConfirmer>;
    /** Whether a listed signature may be worked through now (the agreed slot, the wall clock). */
    within(info: ConfirmedSignatureInfo): boolean;
  },
) {
  /** Signatures worked through (by the sweep or a run) and their slots; pruned to what the last run listed. */
  const done = new Map<string, number>();

  async function run(m: Member<SolanaEndpoint>, signal: AbortSignal): Promise<void> {
    const raw = await options.ledger.loadCheckpoint<unknown>(deps.key);
    const state = readState(raw);
    const now = options.clock.now();
    if (state === undefined) {
      // The sweep has just listed the recent signatures: the first run is one period away.
      await options.ledger.saveCheckpoint({ key: deps.key, value: { v: 1, at: now } satisfies RescanState });
      return;
    }
    if (now - state.at < options.rescanMs) return;
    const listed = await m.spec.conn.getSignaturesForAddress(new PublicKey(options.target.account), { limit: options.pageLimit }, options.commitment);
    const from = now - options.windowMs;
    const todo = listed.filter((i) => i.err == null && !done.has(i.signature) && deps.within(i) && (i.blockTime == null || i.blockTime * 1000 >= from)).reverse();
    let found = 0;
    let waiting = 0;
    for (const info of todo) {
      if (signal.aborted) return;
      const read = await deps.readTransaction(m.spec.conn, info);
      // One it cannot decode is the sweep's to record (it lists it too); one not returned yet is asked again next run.
      if (read.kind === 'unreadable') done.set(info.signature, info.slot);
      if (read.kind === 'unreadable' || !read.tx) continue;
      let adapted: ReturnType<typeof adaptTransaction>;
      try {
        adapted = adaptTransaction(read.tx, info.signature, options.target, options.clock.now());
      } catch {
        continue;
      }
      if (adapted.kind === 'skip') {
        done.set(info.signature, info.slot);
        continue;
      }
      const verdict = await options.pool.confirm(m, deps.confirmer.askAbout(info, adapted.payment));
      if (verdict !== 'confirmed') {
        // Asked about again next run: a lagging endpoint catches up, a fabrication never does.
        waiting += 1;
        if (verdict === 'contradicted') options.log.error('solana endpoints disagree about a transaction; not settled', { tx: info.signature, endpoint: m.label });
        continue;
      }
      const outcome = await options.ledger.ingest(adapted.payment);
      done.set(info.signature, info.slot);
      if (outcome.kind !== 'duplicate') {
        found += 1;
        options.log.warn('solana re-scan found a payment the listing had missed', {
          tx: info.signature,
          endpoint: m.label,
          amount: formatMinor(adapted.payment.amountMinor, options.target.decimals),
          outcome: outcome.kind,
        });
      }
    }
    const oldest = listed[listed.length - 1];
    if (oldest) for (const [sig, slot] of done) if (slot < oldest.slot) done.delete(sig);
    await options.ledger.saveCheckpoint({ key: deps.key, value: { v: 1, at: options.clock.now() } satisfies RescanState });
    options.log.info('solana re-scan done', { endpoint: m.label, listed: listed.length, read: todo.length, found, waiting });
  }

  return {
    run,
    /** The sweep worked through `info` (recorded, passed over or rejected): a run need not read it. */
    worked: (info: ConfirmedSignatureInfo): void => void done.set(info.signature, info.slot),
  };
}

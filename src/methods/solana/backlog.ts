/**
 * What one cycle works through: the signatures since the checkpoint, oldest first; on first
 * start the recent ones only; or a backlog too long to list in one cycle, newest first across
 * cycles (`Checkpoint.backlog`, signatures.ts).
 */
import type { ConfirmedSignatureInfo, Connection, Finality } from '@solana/web3.js';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import type { WatchTarget } from './adapt.ts';
import { listRecent, listSince, type Checkpoint } from './signatures.ts';

/** One batch of signatures to work through, in order, and the checkpoint each one leaves. */
export interface Batch {
  /** `since`: everything after the checkpoint, oldest first; `first`: a first start's recent page; `backlog`: one step of a backlog, newest first. */
  kind: 'since' | 'first' | 'backlog';
  list: ConfirmedSignatureInfo[];
  at(info: ConfirmedSignatureInfo): Checkpoint;
  /** Checkpoint once the whole batch is done (the backlog's top), if not simply the last `at`. */
  done?: Checkpoint;
  /** Progress to save even if the batch pays nothing (first start passing over older entries). */
  skipped?: Checkpoint;
  /** A backlog that continues next cycle: done with this batch is not caught up. */
  partial?: boolean;
}

/** The poller's options a listing reads (PollerOptions, poller.ts). */
export interface BatchOptions {
  target: WatchTarget;
  commitment: Finality;
  ledger: Pick<Ledger, 'loadCheckpoint'>;
  clock: Clock;
  log: Logger;
  pageLimit: number;
  maxPages: number;
  firstStartLookbackMs: number;
}

const plain = (info: ConfirmedSignatureInfo): Checkpoint => ({ signature: info.signature, slot: info.slot });

/**
 * The batch this cycle works through, from the checkpoint saved under `key`. `within`: whether a
 * listed signature may be worked through now (at most the agreed slot, not dated past the wall
 * clock); the newer ones are left for a later cycle, so no checkpoint ever passes them.
 */
export async function pending(conn: Connection, options: BatchOptions, key: string, within: (info: ConfirmedSignatureInfo) => boolean = () => true): Promise<Batch> {
  const list = { commitment: options.commitment, limit: options.pageLimit, maxPages: options.maxPages };
  const cp = await options.ledger.loadCheckpoint<Checkpoint>(key);
  const keep = (got: { list: ConfirmedSignatureInfo[]; complete: boolean }) => {
    const kept = got.list.filter(within);
    return { list: kept, complete: got.complete, held: kept.length < got.list.length };
  };
  if (cp?.backlog) return backlog(cp, cp.backlog.top, keep(await listSince(conn, options.target.account, cp, { ...list, before: cp.backlog.before })));
  if (cp) {
    const since = keep(await listSince(conn, options.target.account, cp, list));
    if (since.complete) return { kind: 'since', list: since.list.reverse(), at: plain, partial: since.held };
    const top = since.list[0];
    if (!top) return { kind: 'since', list: [], at: plain, partial: true };
    options.log.warn('solana backlog longer than one cycle lists; working through it newest first across cycles', { account: options.target.account, listed: since.list.length });
    return backlog(cp, { signature: top.signature, slot: top.slot }, since);
  }
  const listed = await listRecent(conn, options.target.account, { ...list, notBeforeMs: options.clock.now() - options.firstStartLookbackMs });
  const all = listed.all.filter(within);
  const recent = listed.recent.filter(within);
  if (all.length > 0) options.log.info('solana first start', { account: options.target.account, examined: recent.length, older_ignored: all.length - recent.length });
  // Older entries are passed over, but the checkpoint still moves past them.
  const newestOld = all.find((s) => !recent.includes(s));
  return { kind: 'first', list: recent.reverse(), at: plain, skipped: newestOld && plain(newestOld), partial: all.length < listed.all.length };
}

/** Newest first; each entry done moves `before` down; reaching the checkpoint makes `top` the checkpoint. */
function backlog(cp: Checkpoint, top: { signature: string; slot: number }, got: { list: ConfirmedSignatureInfo[]; complete: boolean; held: boolean }): Batch {
  return {
    kind: 'backlog',
    list: got.list,
    at: (info) => ({ signature: cp.signature, slot: cp.slot, backlog: { top, before: info.signature } }),
    done: got.complete ? top : undefined,
    partial: !got.complete || got.held,
  };
}

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

/** The batch this cycle works through, from the checkpoint saved under `key`. */
export async function pending(conn: Connection, o: BatchOptions, key: string): Promise<Batch> {
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

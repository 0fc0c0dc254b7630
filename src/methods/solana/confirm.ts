/**
 * Another endpoint's word on a transaction one endpoint listed, before it moves money or the
 * checkpoint (the pool's `confirm` asks each in turn until its quorum agrees).
 */
import type { ConfirmedSignatureInfo, Connection } from '@solana/web3.js';
import type { ReceivedPayment } from '../../domain/payment.ts';
import type { Verdict } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import { adaptTransaction, type WatchTarget } from './adapt.ts';
import type { SolanaEndpoint } from './rpc.ts';
import type { Checkpoint } from './signatures.ts';
import type { Read } from './transactions.ts';

/** The same money to the same place: what a second endpoint must return for a payment to settle. */
function samePayment(a: ReceivedPayment, b: ReceivedPayment): boolean {
  return a.amountMinor === b.amountMinor && a.receiver === b.receiver && a.txRef === b.txRef && a.occurredAt === b.occurredAt && JSON.stringify(a.references ?? []) === JSON.stringify(b.references ?? []);
}

export function createSolanaConfirmer(options: { target: WatchTarget; readTransaction(conn: Connection, info: ConfirmedSignatureInfo): Promise<Read> }) {
  /**
   * What `other` says about a transaction: `same` when it returns it with the same payment (or, for
   * one that pays nothing, in the same slot with the same outcome).
   */
  const askAbout =
    (info: ConfirmedSignatureInfo, payment: ReceivedPayment | undefined) =>
    async (other: Member<SolanaEndpoint>): Promise<Verdict> => {
      const read = await options.readTransaction(other.spec.conn, info);
      if (read.kind === 'unreadable' || !read.tx) return 'unknown';
      if (read.tx.slot !== info.slot || (read.tx.meta?.err == null) !== (info.err == null)) return 'differs';
      if (payment === undefined) return 'same';
      let theirs: ReturnType<typeof adaptTransaction>;
      try {
        theirs = adaptTransaction(read.tx, info.signature, options.target, payment.observedAt);
      } catch {
        return 'differs';
      }
      return theirs.kind === 'payment' && samePayment(theirs.payment, payment) ? 'same' : 'differs';
    };

  /** What `other` says about a checkpoint at a signature that paid nothing: `same` when it returns it in that slot. */
  const askAboutCheckpoint =
    (cp: Checkpoint) =>
    async (other: Member<SolanaEndpoint>): Promise<Verdict> => {
      const info = { signature: cp.signature, slot: cp.slot, err: null, memo: null, blockTime: null } as ConfirmedSignatureInfo;
      const read = await options.readTransaction(other.spec.conn, info);
      return read.kind === 'unreadable' ? 'same' : !read.tx ? 'unknown' : read.tx.slot === cp.slot ? 'same' : 'differs';
    };

  return { askAbout, askAboutCheckpoint };
}

/**
 * Reading one listed transaction, and what is recorded for the operator instead when it cannot
 * be read, or when the node keeps listing it without returning it.
 */
import type { ConfirmedSignatureInfo, Connection, Finality } from '@solana/web3.js';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import type { WatchTarget } from './adapt.ts';
import type { Checkpoint } from './signatures.ts';
import { isUnreadableTransaction, MAX_TRANSACTION_VERSION } from './versions.ts';

export type Read = { kind: 'tx'; tx: Awaited<ReturnType<Connection['getParsedTransaction']>> } | { kind: 'unreadable'; error: unknown };

/** `o`: the poller's options (PollerOptions, poller.ts); `key`: its checkpoint, which a rejection moves past the transaction. */
export function createTransactionReads(
  options: { target: WatchTarget; commitment: Finality; ledger: Pick<Ledger, 'reject'>; clock: Clock; log: Logger; maxUnavailableCycles: number },
  key: string,
) {
  const unavailable = new Map<string, number>();

  /** Transport faults and rate limits throw (the loop backs off); an unreadable transaction is an answer. */
  async function readTransaction(conn: Connection, info: ConfirmedSignatureInfo): Promise<Read> {
    try {
      return { kind: 'tx', tx: await conn.getParsedTransaction(info.signature, { maxSupportedTransactionVersion: MAX_TRANSACTION_VERSION, commitment: options.commitment }) };
    } catch (err) {
      if (isUnreadableTransaction(err)) return { kind: 'unreadable', error: err };
      throw err;
    }
  }

  async function unreadable(info: ConfirmedSignatureInfo, err: unknown, at: Checkpoint): Promise<void> {
    const error = err instanceof Error ? err.message : String(err);
    options.log.error('solana transaction cannot be read; recorded and passed over', { tx: info.signature, error });
    await options.ledger.reject(
      {
        source: 'solana',
        method: options.target.method,
        ref: `solana:${info.signature}`,
        reason: 'unsupported_transaction',
        detail: { signature: info.signature, slot: info.slot, account: options.target.account, error: error.slice(0, 500) },
        observedAt: options.clock.now(),
      },
      { key, value: at },
    );
  }

  /** Returns true once a transaction the node keeps not returning has been set aside for the operator. */
  async function setAside(info: ConfirmedSignatureInfo): Promise<boolean> {
    const seen = (unavailable.get(info.signature) ?? 0) + 1;
    unavailable.set(info.signature, seen);
    if (seen < options.maxUnavailableCycles) {
      options.log.debug('solana transaction listed but not yet returned', { tx: info.signature, cycles: seen });
      return false;
    }
    unavailable.delete(info.signature);
    options.log.error('solana transaction unavailable; set aside', { tx: info.signature, cycles: seen });
    await options.ledger.reject({
      source: 'solana',
      method: options.target.method,
      ref: `solana:${info.signature}`,
      reason: 'transaction_unavailable',
      detail: { slot: info.slot, account: options.target.account },
      observedAt: options.clock.now(),
    });
    return true;
  }

  return { readTransaction, unreadable, setAside };
}

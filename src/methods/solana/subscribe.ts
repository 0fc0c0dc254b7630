/** Optional push: a logs subscription only wakes the poll loop early; polling stays the source of truth. */
import { PublicKey, type Connection, type Finality } from '@solana/web3.js';
import type { Logger } from '../../domain/ports.ts';
import { describeError } from '../../domain/errors.ts';
import { type WakeSignal } from '../../runtime/wake.ts';

/** Subscribes to logs mentioning `account`; returns the unsubscribe. Never throws: a dead socket only costs promptness. */
export function subscribeWake(conn: Connection, account: string, commitment: Finality, wake: WakeSignal, log: Logger): () => Promise<void> {
  let id: number;
  try {
    id = conn.onLogs(new PublicKey(account), () => wake.wake(), commitment);
  } catch (err) {
    log.warn('solana logs subscription unavailable; polling only', { error: describeError(err) });
    return async () => {};
  }
  return async () => {
    try {
      await conn.removeOnLogsListener(id);
    } catch (err) {
      log.debug('solana logs unsubscribe failed', { error: describeError(err) });
    }
  };
}

/**
 * One decided row handed to the ledger: a credit ingested as a payment, any other row recorded
 * as rejected; by the sweep with the checkpoint that covers it, by the re-scan without one.
 */
import type { IngestOutcome } from '../../domain/payment.ts';
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { toPayment } from './adapt.ts';
import type { TronCursor } from './cursor.ts';
import type { RowDecision } from './netting.ts';

export interface RowHandlerDeps {
  /** The method the token feeds. */
  method: string;
  address: string;
  contract: string;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
}

export function createRowHandler(deps: RowHandlerDeps) {
  /**
   * Hands one decided row to the ledger (with `checkpoint`, which already covers it). The
   * re-scan (no checkpoint) hands over rows mostly seen before: the ledger tells what is new.
   */
  return async function handle(r: RowDecision, checkpoint: { key: string; value: TronCursor } | undefined): Promise<IngestOutcome | undefined> {
    const { item, row } = r;
    if (r.kind === 'reject') {
      if (checkpoint) deps.log.warn('TronGrid transfer rejected', { txid: item.txid, row, reason: r.reason });
      await deps.ledger.reject(
        { source: 'trongrid', method: deps.method, ref: `trongrid:${row}`, reason: r.reason, detail: { ...r.detail, txid: item.txid, block_timestamp: item.blockTimestamp }, observedAt: deps.clock.now() },
        checkpoint,
      );
      return undefined;
    }
    const outcome = await deps.ledger.ingest(toPayment(deps.method, r.item, row, deps.address, deps.contract, deps.clock.now(), r), checkpoint);
    if (checkpoint) deps.log.info('TronGrid transfer ingested', { txid: item.txid, row, amount_minor: r.amountMinor, outcome: outcome.kind });
    return outcome;
  };
}

export type RowHandler = ReturnType<typeof createRowHandler>;

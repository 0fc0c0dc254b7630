import { TxConflict, type Tx } from '../../db/open.ts';
import { chosenIntent, exactAmount, intentView, type Intent } from '../../domain/intent.ts';
import { chosenColumns } from '../../db/intent-rows.ts';
import { formatMinor } from '../../domain/money.ts';
import type { ReceivedPayment } from '../../domain/payment.ts';
import type { PaymentReason } from '../../domain/payment-policy.ts';
import { moneyOfOne } from '../intents/money.ts';
import type { IngestOptions, LedgerContext } from './deps.ts';
import { audit } from '../../db/audit.ts';

/** What payment.success says beyond the intent. */
export interface SuccessExtras {
  late?: boolean;
  underpaidByMinor?: bigint;
  /** Settled by a payment above what was due, by this much (the merchant refunds it). */
  overpaidByMinor?: bigint;
  accepted?: boolean;
  /** Who decided this payment settles the intent, when a person did. */
  settledBy?: 'merchant' | 'operator';
  /** The payment was already counted on the intent (an accepted held one). */
  alreadyCounted?: boolean;
}

type TxIds = Pick<ReceivedPayment, 'txRef' | 'txHash'>;

/** Marks the intent settled by this payment row and queues its webhook, in the caller's transaction. */
export async function settle(deps: LedgerContext, tx: Tx, intent: Intent, paymentId: string, p: TxIds, now: number, options: IngestOptions, extra: SuccessExtras = {}): Promise<void> {
  // The merchant sees the chain's transaction id, also when it carried several payments.
  const transaction_hash = p.txHash ?? p.txRef;
  const paymentCount = (intent.paymentCount ?? 0) + (extra.alreadyCounted ? 0 : 1);
  const upd = await tx
    .updateTable('intents')
    // An open intent settles in the method it was paid in: maybe a choice the customer left for another.
    .set({ ...(intent.open ? chosenColumns(intent) : {}), status: 'settled', transaction_hash, verified_at: now, payment_id: paymentId, updated_at: now, payment_count: paymentCount })
    .where('id', '=', intent.id)
    .where('status', '=', intent.status)
    .where('payment_count', '=', intent.paymentCount ?? 0)
    .executeTakeFirst();
  // Canceled or settled by another node since we read it: writeTx runs the ingest again.
  if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`intent ${intent.id}`);
  const settled: Intent = { ...intent, status: 'settled', transactionHash: transaction_hash, verifiedAt: now, paymentId, updatedAt: now, paymentCount };
  const labelsOf = deps.labelsOf ?? ((method: string) => ({ group: method, network: null }));
  const view = intentView(settled, { now, livemode: deps.livemode, publicUrl: deps.publicUrl, decimalsOf: deps.decimalsOf, labelsOf }, await moneyOfOne(tx, settled));
  const decimals = deps.decimalsOf(chosenIntent(intent).method);
  await deps.outbox.enqueue(tx, intent.merchantId, intent.id, 'payment.success', {
    ...view,
    ...(extra.late ? { late: true } : {}),
    ...(extra.underpaidByMinor ? exactAmount('underpaid_by', formatMinor(extra.underpaidByMinor, decimals)) : {}),
    ...(extra.overpaidByMinor ? exactAmount('overpaid_by', formatMinor(extra.overpaidByMinor, decimals)) : {}),
    ...(extra.accepted ? { accepted: true } : {}),
    ...(extra.settledBy ? { settled_by: extra.settledBy } : {}),
  });
  if (options.intentId) await audit(tx, { at: now, actor: options.actor ?? 'cli', action: 'intent.settle', subject: intent.id, details: { tx_ref: p.txRef, note: options.note ?? null } });
}

/**
 * The data of payment.held and payment.refunded: the payment, and the order it was held on with
 * the amount asked, so the merchant can decide without fetching the intent first.
 */
export function heldEvent(deps: LedgerContext, intent: Intent, p: TxIds, amountMinor: bigint, reason: PaymentReason) {
  const chosen = chosenIntent(intent);
  const decimals = deps.decimalsOf(chosen.method);
  return {
    intent_id: intent.id,
    order_id: intent.orderId,
    currency: chosen.method,
    transaction_hash: p.txHash ?? p.txRef,
    ...exactAmount('amount', formatMinor(amountMinor, decimals)),
    ...exactAmount('pay_amount', formatMinor(chosen.payAmountMinor, decimals)),
    reason,
  };
}

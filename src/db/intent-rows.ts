import type { Intent } from '../domain/intent.ts';
import type { Method } from '../domain/methods.ts';
import { minorToDb } from '../domain/money.ts';
import type { IntentsTable } from './schema.ts';

/** A stored intent row (either store: integers read as numbers) as the core's Intent. */
export function intentFromRow(row: IntentsTable): Intent {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    orderId: row.order_id,
    method: row.method as Method,
    amountMinor: BigInt(row.amount_minor),
    payAmountMinor: BigInt(row.pay_amount_minor),
    receiver: row.receiver,
    reference: row.reference,
    paymentUri: row.payment_uri,
    status: row.status,
    returnUrl: row.return_url,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    transactionHash: row.transaction_hash,
    verifiedAt: row.verified_at,
    paymentId: row.payment_id,
    updatedAt: row.updated_at,
    canceledAt: row.canceled_at ?? null,
  };
}

/** The row that stores `intent` (amounts checked to fit the stores' integers). */
export function intentToRow(intent: Intent): IntentsTable {
  return {
    id: intent.id,
    merchant_id: intent.merchantId,
    order_id: intent.orderId,
    method: intent.method,
    amount_minor: minorToDb(intent.amountMinor),
    pay_amount_minor: minorToDb(intent.payAmountMinor),
    receiver: intent.receiver,
    reference: intent.reference,
    payment_uri: intent.paymentUri,
    status: intent.status,
    return_url: intent.returnUrl,
    created_at: intent.createdAt,
    expires_at: intent.expiresAt,
    transaction_hash: intent.transactionHash,
    verified_at: intent.verifiedAt,
    payment_id: intent.paymentId,
    updated_at: intent.updatedAt,
    canceled_at: intent.canceledAt,
  };
}

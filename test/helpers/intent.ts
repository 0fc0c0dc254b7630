// A pending UPI intent as the domain holds it, for tests that build intents without the API.
import type { Intent } from '../../src/domain/intent.ts';

/** Pending, on shop@hdfcbank, asking `payAmountMinor`, created at `createdAt` and expiring 30 minutes later. */
export function pendingIntent(id: string, payAmountMinor: bigint, createdAt: number, over: Partial<Intent> = {}): Intent {
  return {
    id,
    merchantId: 'm',
    orderId: id,
    method: 'UPI',
    amountMinor: payAmountMinor,
    payAmountMinor,
    receiver: 'shop@hdfcbank',
    reference: null,
    paymentUri: 'upi://pay',
    status: 'pending',
    returnUrl: null,
    createdAt,
    expiresAt: createdAt + 30 * 60_000,
    transactionHash: null,
    verifiedAt: null,
    paymentId: null,
    updatedAt: createdAt,
    canceledAt: null,
    pricing: null,
    ...over,
  };
}

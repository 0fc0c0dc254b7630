import type { PaymentReason } from '../payment-policy.ts';

/**
 * What the bot needs of held payments (the held-payments service, services/held-payments.ts): the same
 * calls the CLI and the console make. Declared here so the bot does not depend on its module.
 */
export interface HeldPaymentRow {
  intentId: string;
  merchantId: string;
  method: string;
  transactionHash: string;
  amount: bigint;
  receivedAt: number | string;
  status: string;
  /** Why it is held, as attribution decided: a fake cannot invent one the service never gives. */
  reason: PaymentReason | null;
}

export interface HeldPayments {
  listPayments(q: { status?: 'held' | 'credited' | 'refunded'; merchantId?: string; intentId?: string; cursor?: string; limit?: number }): Promise<{ items: HeldPaymentRow[]; nextCursor?: string | null }>;
  acceptPayment(a: { intentId: string; transactionHash: string; merchantId?: string; actor: string }): Promise<unknown>;
  markRefunded(a: { intentId: string; transactionHash: string; merchantId?: string; actor: string }): Promise<unknown>;
}

/** One verified credit alert → one ReceivedPayment. Pure. */
import type { ReceivedPayment } from '../../domain/payment.ts';
import type { CreditAlert } from './alert.ts';
import { UPI_ID } from './id.ts';

/** A verified credit alert → the normalized payment the ledger matches on (txRef = UTR). */
export function creditToPayment(alert: CreditAlert, ctx: { vpa: string; uid: number; observedAt: number; origin?: ReceivedPayment['origin'] }): ReceivedPayment {
  return {
    // Kept with its raw bytes should the UTR already be recorded with other facts.
    ...(ctx.origin ? { origin: ctx.origin } : {}),
    method: UPI_ID,
    receiver: ctx.vpa,
    amountMinor: alert.amountMinor,
    txRef: alert.utr,
    occurredAt: alert.occurredAt,
    observedAt: ctx.observedAt,
    source: 'imap',
    // JSON-safe facts for the operator; undefined fields drop out when serialized.
    evidence: {
      bank: alert.bank,
      accountMask: alert.accountMask,
      payerVpa: alert.payerVpa,
      payerName: alert.payerName,
      messageId: alert.messageId,
      auth: alert.auth,
      utrDerived: alert.utrDerived,
      uid: ctx.uid,
    },
  };
}

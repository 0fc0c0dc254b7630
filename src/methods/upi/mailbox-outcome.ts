import type { ReceivedPayment, RejectedObservation } from '../../domain/payment.ts';
import type { CreditAlert } from './alert.ts';
import { messageRef } from './mailbox-checkpoint.ts';

/** One fetched message, as much of it as the source needs. */
export interface MailboxMessage {
  uid: number;
  source: Buffer;
  /** IMAP INTERNALDATE, ms since epoch (when the server received it). */
  internalDate?: number;
}

/** A verified credit alert → the normalized payment the ledger matches on (txRef = UTR). */
export function creditToPayment(alert: CreditAlert, ctx: { vpa: string; uid: number; observedAt: number; origin?: ReceivedPayment['origin'] }): ReceivedPayment {
  return {
    // Kept with its raw bytes should the UTR already be recorded with other facts.
    ...(ctx.origin ? { origin: ctx.origin } : {}),
    method: 'UPI',
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

/** A mail that looks like a bank credit but fails checks: kept with its raw bytes for the operator. */
export function rejection(
  msg: MailboxMessage,
  ctx: { uidValidity: string; observedAt: number; reason: string; bank?: string; detail?: Record<string, unknown> },
): RejectedObservation {
  return {
    source: 'imap',
    method: 'UPI',
    ref: messageRef(ctx.uidValidity, msg.uid),
    reason: ctx.reason,
    detail: { ...(ctx.bank ? { bank: ctx.bank } : {}), ...ctx.detail, uid: msg.uid, uidValidity: ctx.uidValidity },
    raw: msg.source,
    observedAt: ctx.observedAt,
  };
}

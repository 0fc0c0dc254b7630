/**
 * A held payment's reason in the shopkeeper's words, and what to do where the reason asks for
 * something particular: the console's Held tab and the notifications (Telegram, e-mail) say the same.
 */
import type { PaymentReason } from './payment-policy.ts';

const WHY: Record<PaymentReason, string> = {
  late: 'arrived after the intent expired',
  quote_expired: 'paid after the price quote expired: the rate has changed',
  underpaid: 'less than the intent asked',
  overpaid: 'more than the intent asked',
  canceled: 'arrived after the intent was canceled',
  after_settlement: 'arrived after the intent was already settled',
};

/** What to do, where the plain "accept it or mark it refunded" would mislead. */
const TODO: Partial<Record<PaymentReason, string>> = {
  // Accepting credits the coins received, whatever they are worth now: not the price at the quote.
  quote_expired: "accept at today's rate or refund",
};

export function heldWords(reason: string | null): { why: string; todo?: string } {
  if (reason === null || !Object.hasOwn(WHY, reason)) return { why: reason === null ? 'held' : reason.replace(/_/g, ' ') };
  const r = reason as PaymentReason;
  return { why: WHY[r], ...(TODO[r] !== undefined ? { todo: TODO[r] } : {}) };
}

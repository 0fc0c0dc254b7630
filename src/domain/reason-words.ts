/**
 * Why a payment settled nothing, and why an observation was refused, in the shopkeeper's words:
 * the console shows these instead of the codes the API, the logs and the metrics carry.
 */
import type { UnmatchedReason } from './payment.ts';

const UNMATCHED: Record<UnmatchedReason, string> = {
  no_matching_intent: 'no order for this amount',
  underpaid: 'paid less than asked',
  too_early: 'paid before the order was made',
  late: 'paid after the order expired',
  ambiguous: 'more than one order asks this amount',
  already_settled: 'the order was already paid',
  canceled: 'paid after the order was canceled',
};

/** An unmatched payment's reason; a row without one settled nothing for no recorded reason. */
export function unmatchedWords(reason: string | null): string {
  if (reason === null) return 'no order for this amount';
  return Object.hasOwn(UNMATCHED, reason) ? UNMATCHED[reason as UnmatchedReason] : spelled(reason);
}

const REJECTED: Record<string, string> = {
  amount_out_of_range: 'an amount no order can ask for',
  amount_conflict: 'the alert names two different amounts',
  duplicate_reference_mismatch: 'a reference already seen, with other details',
  no_utr: 'no UPI reference in the alert',
  not_upi: 'not a UPI payment alert',
  no_credit: 'not money received',
  refund: 'a refund, not a payment',
  reversal: 'a reversed payment',
  self_transfer: "a transfer between the shop's own accounts",
  netted_by_outgoing: 'money that went straight back out',
  marketing: "the bank's marketing mail",
  unknown_sender: 'not from a bank payd knows',
  lookalike_sender: 'from an address that imitates a bank',
  multiple_from: 'more than one sender: possibly forged',
  recipient_mismatch: 'sent to another mailbox than the shop’s',
  recipient_unsigned: 'the bank did not sign whom it was for: possibly forged',
  dkim_fail: "the bank's signature does not match: forged or altered",
  dkim_missing: 'not signed by the bank: possibly forged',
  dkim_not_aligned: 'signed by someone other than the bank: possibly forged',
  dkim_headers_unsigned: "the bank's signature leaves key lines unsigned",
  dkim_body_length_limited: "the bank's signature covers only part of the message",
  dns_temperror: "the bank's signing key could not be looked up",
  auth_error: 'the signature could not be checked',
  unrecognized: 'an alert payd cannot read',
  unknown_credit_format: 'an alert payd cannot read',
  malformed: 'an alert payd cannot read',
  format: 'an alert payd cannot read',
  bad_amount: 'an amount payd cannot read',
  precision: 'an amount finer than the currency allows',
  bad_date: 'a date payd cannot read',
  no_date: 'no date in the alert',
  no_account: 'no account named in the alert',
  inspector_crash: 'the mail reader failed on this message',
  inspector_error: 'the mail reader failed on this message',
  inspector_timeout: 'the mail reader took too long on this message',
  unconfirmed_transfer: 'a transfer the chain has not confirmed',
  transaction_unavailable: 'a transaction the chain could not show',
  unsupported_transaction: 'a kind of transaction payd does not accept',
  direction_conflict: 'money in and out in the same transaction',
  failed: 'a failed transaction',
};

/** A rejected observation's reason (DMARC's own results as "the bank's DMARC check: none"). */
export function rejectionWords(reason: string): string {
  if (Object.hasOwn(REJECTED, reason)) return REJECTED[reason]!;
  if (reason.startsWith('dmarc_')) return `the bank's DMARC check said ${reason.slice(6)}: possibly forged`;
  return spelled(reason);
}

/** A code no list above knows yet: at least not shown with underscores. */
const spelled = (code: string) => code.replace(/_/g, ' ');

import type { BankId } from '../alert.ts';

/** A calendar date as printed in the alert (Indian Standard Time). */
export interface CalendarDate {
  year: number;
  month: number; // 1-12
  day: number;
}

export interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
}

/** A UPI credit to one of the bank's accounts, as read from the alert text. */
export interface ParsedCredit {
  kind: 'credit';
  amountMinor: bigint; // paise
  /** As printed: "XX4321", "**4321", "XXXXX654321", "4321" ("ending in 4321"). */
  accountMask: string;
  /** 12-digit UPI reference; absent where the bank prints none (SBI). */
  utr?: string;
  payerVpa?: string;
  payerName?: string;
  date?: CalendarDate;
  /** Only when the body prints one (Axis, Federal, YES). */
  time?: TimeOfDay;
}

/** A bank mail that is not a customer's UPI credit; nothing to keep. */
export interface NotACredit {
  kind: 'not_credit';
  reason: NotCreditReason;
}

export type NotCreditReason =
  | 'debit'
  | 'refund'
  | 'reversal'
  | 'not_upi'
  | 'balance'
  | 'otp'
  | 'mandate'
  | 'declined'
  | 'statement'
  | 'card'
  | 'collect'
  | 'unrecognized';

/** Reads like a credit alert, but the template's fields are not all there. */
export interface UnparseableCredit {
  kind: 'unparseable';
  reason: string;
}

/**
 * Reads like a credit, but the counterparty's own text (payer name, a UPI path's name segment, a
 * remitter row) carries an amount, a money verb or one of the bank's labels, or the bank's labels
 * appear twice: never settled, kept as the rejection `suspicious_counterparty`.
 */
export interface SuspiciousCredit {
  kind: 'suspicious';
  /** The field that carried it (`payerName`, `counterparty`…), or `text` for a repeated label or debit wording. */
  field: string;
  why: string;
}

export type ParseResult = ParsedCredit | NotACredit | UnparseableCredit | SuspiciousCredit;

/**
 * One bank's alert format. Facts and wording: test/fixtures/upi-emails/README.md §1. A parser reads the direction from
 * the bank's first money sentence, each value from the row its label owns, and checks what the
 * counterparty wrote (counterparty.ts); its patterns are linear in the text's length.
 */
export interface BankParser {
  id: BankId;
  /** Org-level domains, current `.bank.in` and legacy; the From domain must equal one or be a subdomain. */
  senderDomains: readonly string[];
  /** Local parts at those domains that only send marketing. */
  marketingSenders?: readonly string[];
  /** `text`: one body (plain text, or HTML flattened to text); `subject`: decoded Subject header. */
  parse(text: string, subject: string): ParseResult;
}

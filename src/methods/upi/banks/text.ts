/**
 * Shared pieces of the alert templates: amounts, dates, VPAs, UTRs, masks.
 * Regex sources are strings so bank modules can compose one sentence per template.
 */
import { parseDecimal } from '../../../domain/money.ts';
import type { CalendarDate, NotACredit, ParseResult, TimeOfDay } from './bank.ts';

/** "Rs.499.37", "Rs. 1,02,345.67", "Rs 236.00", "INR 500", "Rs. INR 9,569.45", "₹499.37"; group 1 = number. */
export const AMOUNT = String.raw`(?:Rs\.?\s*(?:INR\s*)?|INR\s*|₹\s*)([0-9][0-9,]*(?:\.[0-9]+)?)`;
/** "**4321", "XX4321", "xx4321", "XXXXX654321", "15XXXXXX4321", bare "4321"; group 1. */
export const MASK = String.raw`((?:\d{0,4}[Xx*]+)?\d{3,6})`;
/** dd-mm-yy, dd/mm/yy, dd-mm-yyyy, dd-Mon-yy, dd-Mon-yyyy, "Mon dd, yyyy"; group 1. */
export const DATE = String.raw`(\d{1,2}[-/](?:\d{1,2}|[A-Za-z]{3})[-/]\d{2,4}|[A-Za-z]{3} \d{1,2}, \d{4})`;
/** hh:mm[:ss] with optional am/pm; group 1. */
export const TIME = String.raw`(\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp][Mm])?)`;
/** The handle ends at the first non-alphanumeric, so a sentence's full stop is not swallowed. */
export const VPA = String.raw`[\w.\-]+@[A-Za-z][A-Za-z0-9]*`;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** All whitespace (newlines, NBSP) as single spaces: templates are matched as sentences. */
export function oneLine(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Indian or western digit grouping -> paise; undefined for more than 2 decimals or zero. */
export function toPaise(text: string): bigint | undefined {
  const r = parseDecimal(text.replace(/,/g, ''), 2);
  return r.ok && r.minor > 0n ? r.minor : undefined;
}

export function parseDate(text: string): CalendarDate | undefined {
  let day: number, month: number, year: number;
  const dmy = /^(\d{1,2})[-/](\d{1,2}|[A-Za-z]{3})[-/](\d{2}|\d{4})$/.exec(text.trim());
  const mdy = /^([A-Za-z]{3}) (\d{1,2}), (\d{4})$/.exec(text.trim());
  if (dmy) {
    day = Number(dmy[1]);
    month = /^\d+$/.test(dmy[2]) ? Number(dmy[2]) : MONTHS.indexOf(dmy[2].toLowerCase()) + 1;
    year = Number(dmy[3]) + (dmy[3].length === 2 ? 2000 : 0);
  } else if (mdy) {
    month = MONTHS.indexOf(mdy[1].toLowerCase()) + 1;
    day = Number(mdy[2]);
    year = Number(mdy[3]);
  } else return undefined;
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (month < 1 || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return undefined;
  return { year, month, day };
}

export function parseTime(text: string): TimeOfDay | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?$/.exec(text.trim());
  if (!m) return undefined;
  let hour = Number(m[1]);
  const ampm = m[4]?.toLowerCase();
  if (ampm === 'pm' && hour < 12) hour += 12;
  if (ampm === 'am' && hour === 12) hour = 0;
  const minute = Number(m[2]);
  const second = Number(m[3] ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return { hour, minute, second };
}

/** The UPI reference (RRN) right after one of the labels: 12 digits, 13 in some HDFC alerts. */
export function utrAfter(text: string, label: string): string | undefined {
  return new RegExp(`${label}\\s*(\\d{12,13})(?!\\d)`, 'i').exec(text)?.[1];
}

/**
 * The value after a label, up to the next of `stops` (other labels of the same template) or the
 * end: label-driven reading, so rows may come on one line, glued together, or reordered.
 */
export function labelled(text: string, label: string, stops: readonly string[]): string | undefined {
  const t = oneLine(text);
  const m = new RegExp(`${label}\\s*`, 'i').exec(t);
  if (!m) return undefined;
  const rest = t.slice(m.index + m[0].length);
  let end = rest.length;
  for (const stop of stops) {
    const s = new RegExp(stop, 'i').exec(rest);
    if (s && s.index < end) end = s.index;
  }
  const v = rest.slice(0, end).trim();
  return v || undefined;
}

/** The rest of the line after a label ("Payer Name: ASHA VERMA"), trimmed. */
export function lineAfter(text: string, label: string): string | undefined {
  const v = new RegExp(`${label}[ \\t]*([^\\n]*)`, 'i').exec(text)?.[1]?.trim();
  return v ? v : undefined;
}

const IFSC = /^[A-Z]{4}0[A-Z0-9]{6}$/;
const FULL_VPA = new RegExp(`^${VPA}$`);

/**
 * "UPI/<utr>/<segments…>" as printed by ICICI, YES, IndusInd, Axis: the VPA is the segment
 * shaped like one; the name is the first segment of letters that is not a code (CR, P2A, IFSC).
 */
export function upiInfo(text: string): { utr: string; payerVpa?: string; payerName?: string } | undefined {
  const m = /UPI\/(?:[A-Z0-9]{2,4}\/)?(\d{12})(?!\d)((?:\/[^/\n]*)*)/.exec(text);
  if (!m) return undefined;
  // A segment ends the info at its sentence's full stop ("…@okaxis. Avl Bal …").
  const segments = m[2]
    .split('/')
    .map((s) => s.split(/\.(?:\s|$)/)[0].trim())
    .filter(Boolean);
  const vpa = segments.map((s) => new RegExp(VPA).exec(s)?.[0]).find((v) => v && FULL_VPA.test(v));
  const name = segments.find((s) => /[A-Za-z]{2}/.test(s) && !s.includes('@') && !IFSC.test(s) && !/^(?:CR|DR|P2A|P2M)$/i.test(s));
  return { utr: m[1], payerVpa: vpa, payerName: name };
}

/** Words that move money, in either direction; the first one in the mail decides (N-13 in REAL-2026.md). */
const MONEY_VERB = /\b(?:(credited|has a credit|Amount Credited|received)|(debited|deducted|spent|has a debit|Amount Debited|withdrawn|you have made|sent(?= (?:Rs|INR|₹))|Dr\.(?= (?:from|to|INR|Rs|₹))))(?=\W|$)/i;
const ABBREVIATIONS = /(?:\bRs|\bNo|\bno|\bRef|\bA\/c|\bAcct|\bMr|\bMs|\bDr|\bLtd|\bPvt|\bInc|\bvs|\d)$/;

/** The sentence around position i: ends at . ! ? before a space, but not after "Rs", "No", a digit… */
function sentenceAround(t: string, i: number): string {
  const boundary = /[.!?](?=\s|$)/g;
  let start = 0;
  let end = t.length;
  for (let m = boundary.exec(t); m; m = boundary.exec(t)) {
    if (ABBREVIATIONS.test(t.slice(Math.max(0, m.index - 6), m.index))) continue;
    if (m.index < i) start = m.index + 1;
    else {
      end = m.index + 1;
      break;
    }
  }
  return t.slice(start, end).trim();
}

/**
 * What a mail is when no credit template matched. The direction comes from the first sentence
 * that moves money, never from words elsewhere (a footer about OTPs or statements must not hide
 * a credit): a credit there is money in, kept for the operator unless that sentence says it is a
 * refund, a reversal, a card payment or money that went to someone else.
 */
export function classifyOther(text: string): ParseResult {
  const t = oneLine(text);
  const not = (reason: NotACredit['reason']): NotACredit => ({ kind: 'not_credit', reason });
  const verb = MONEY_VERB.exec(t);
  if (verb) {
    const sentence = sentenceAround(t, verb.index);
    if (verb[2]) return not('debit');
    // Outward transfers name the payee as the one who received or was credited.
    if (/\bbeneficiary\b|\bfrom your (?:a\/c|acc(?:oun)?t)\b|\bcredited to the\b/i.test(sentence)) return not('debit');
    if (/\bwill be credited\b|\bno amount has been\b/i.test(sentence)) return not('unrecognized');
    if (/\brevers(?:al|ed)\b/i.test(sentence)) return not('reversal');
    if (/\brefund(?:ed)?\b|\bcredited back\b/i.test(sentence)) return not('refund');
    if (/\bcredit card\b|\bcard (?:ending|no\.?|xx)/i.test(sentence)) return not('card');
    if (new RegExp(AMOUNT).test(sentence) || new RegExp(AMOUNT).test(t)) return { kind: 'unparseable', reason: 'unknown_credit_format' };
  }
  if (/\bOTP\b|one[- ]time password/i.test(t)) return not('otp');
  if (/\bmandate\b|\bauto[- ]?pay/i.test(t)) return not('mandate');
  if (/\bdeclined\b|\bfailed\b/i.test(t)) return not('declined');
  if (/\brequest(?:ed)? (?:money|of)\b|\bpayment request\b/i.test(t)) return not('collect');
  if (/\bavailable balance\b|\bavl\.? bal\b/i.test(t)) return not('balance');
  if (/\bstatement\b/i.test(t)) return not('statement');
  return not('unrecognized');
}

export interface CreditFields {
  amount: string;
  mask: string;
  utr?: string;
  payerVpa?: string;
  payerName?: string;
  date?: string;
  time?: string;
}

/** A matched credit sentence -> ParsedCredit, or `unparseable` naming the first bad field. */
export function credit(f: CreditFields, opts: { utrRequired: boolean } = { utrRequired: true }): ParseResult {
  const amountMinor = toPaise(f.amount);
  if (amountMinor === undefined) return { kind: 'unparseable', reason: 'bad_amount' };
  if (!/\d{3}$/.test(f.mask)) return { kind: 'unparseable', reason: 'no_account' };
  if (opts.utrRequired && !f.utr) return { kind: 'unparseable', reason: 'no_utr' };
  const date = f.date === undefined ? undefined : parseDate(f.date);
  if (f.date !== undefined && !date) return { kind: 'unparseable', reason: 'bad_date' };
  const time = f.time === undefined ? undefined : parseTime(f.time);
  return {
    kind: 'credit',
    amountMinor,
    accountMask: f.mask,
    ...(f.utr ? { utr: f.utr } : {}),
    ...(f.payerVpa ? { payerVpa: f.payerVpa } : {}),
    ...(f.payerName ? { payerName: f.payerName } : {}),
    ...(date ? { date } : {}),
    ...(time ? { time } : {}),
  };
}

/**
 * Payers whose credits are refunds or verifications, not customers (REAL-2026.md ).
 * A customer's own VPA may well contain "refund" (refundking@okaxis): only known payers count.
 */
const REFUND_PAYERS = new Set(['gpayrefund-online@axisbank', 'goog-payments@axisbank']);

export function isRefundPayer(vpa: string | undefined): boolean {
  return vpa !== undefined && REFUND_PAYERS.has(vpa.toLowerCase());
}

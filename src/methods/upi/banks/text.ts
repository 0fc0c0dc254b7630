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

/** First 12-digit number right after one of the labels (e.g. "UPI Reference No.:"). */
export function utrAfter(text: string, label: string): string | undefined {
  return new RegExp(`${label}\\s*(\\d{12})(?!\\d)`, 'i').exec(text)?.[1];
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

/**
 * What a mail is when no credit sentence matched: direction and non-payment notices by sentence,
 * and "reads like a credit" (kept for the operator) only after all of those.
 */
export function classifyOther(text: string): ParseResult {
  const t = oneLine(text);
  const not = (reason: NotACredit['reason']): NotACredit => ({ kind: 'not_credit', reason });
  if (/\breversal of\b|\breversed\b/i.test(t)) return not('reversal');
  if (/\brefund(?:ed)?\b/i.test(t) && /\bcredited\b/i.test(t)) return not('refund');
  if (/\b(?:is|has been|was)\s+debited\b|\bdebited (?:from|for|by|with)\b|\bhas a debit\b|\bhas been spent\b|\bAmount Debited\b/i.test(t)) return not('debit');
  if (/\bOTP\b|one[- ]time password/i.test(t)) return not('otp');
  if (/\bmandate\b|\bauto[- ]?pay/i.test(t)) return not('mandate');
  if (/\bdeclined\b|\bfailed\b/i.test(t)) return not('declined');
  if (/\bstatement\b/i.test(t)) return not('statement');
  if (/\bcredited\b|\bhas a credit\b|\bAmount Credited\b/i.test(t) && new RegExp(AMOUNT).test(t)) {
    return { kind: 'unparseable', reason: 'unknown_credit_format' };
  }
  if (/\bavailable balance\b|\bavl\.? bal\b/i.test(t)) return not('balance');
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

/** Refund credits come from the PSP's refund VPA (e.g. gpayrefund-online@axisbank), not a customer. */
export function isRefundPayer(vpa: string | undefined, name: string | undefined): boolean {
  return /refund/i.test(vpa ?? '') || /\brefund/i.test(name ?? '');
}

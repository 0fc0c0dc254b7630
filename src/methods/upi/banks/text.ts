/**
 * Shared pieces of the alert templates: amounts, dates, VPAs, UTRs, masks.
 * Regex sources are strings so bank modules can compose one sentence per template.
 */
import { parseDecimal } from '../../../domain/money.ts';
import type { CalendarDate, ParseResult, TimeOfDay } from './bank.ts';

/** "Rs.499.37", "Rs. 1,02,345.67", "Rs 236.00", "INR 500", "Rs. INR 9,569.45", "₹499.37"; group 1 = number. */
export const AMOUNT = String.raw`(?:Rs\.?\s*(?:INR\s*)?|INR\s*|₹\s*)([0-9][0-9,]*(?:\.[0-9]+)?)`;
/** "**4321", "XX4321", "xx4321", "XXXXX654321", "15XXXXXX4321", bare "4321"; group 1. Bounded: no run to backtrack over. */
export const MASK = String.raw`((?:\d{0,4}[Xx*]{1,16})?\d{3,6})`;
/** dd-mm-yy, dd/mm/yy, dd-mm-yyyy, dd-Mon-yy, dd-Mon-yyyy, "Mon dd, yyyy"; group 1. */
export const DATE = String.raw`(\d{1,2}[-/](?:\d{1,2}|[A-Za-z]{3})[-/]\d{2,4}|[A-Za-z]{3} \d{1,2}, \d{4})`;
/** hh:mm[:ss] with optional am/pm; group 1. */
export const TIME = String.raw`(\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp][Mm])?)`;
/** The handle ends at the first non-alphanumeric, so a sentence's full stop is not swallowed. */
export const VPA = String.raw`[\w.\-]+@[A-Za-z][A-Za-z0-9]*`;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** What `\s` matches beyond ASCII: NBSP, the Unicode spaces, line/paragraph separators, BOM. */
const WIDE_SPACE = new Set([0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);
const UTF16 = new TextDecoder('utf-16le');

/**
 * All whitespace (newlines, NBSP) as single spaces, trimmed: templates are matched as sentences. One
 * pass over the code units; `replace(/\s+/g, ' ')` took ~0.5 s on 1 MB of "a a a…" (one match per word).
 */
export function oneLine(text: string): string {
  const out = new Uint16Array(text.length);
  let n = 0;
  let space = true; // drops leading whitespace
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || (c > 127 && WIDE_SPACE.has(c))) {
      if (!space) out[n++] = 32;
      space = true;
    } else {
      out[n++] = c;
      space = false;
    }
  }
  if (n > 0 && out[n - 1] === 32) n--;
  return UTF16.decode(out.subarray(0, n));
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
 * end: label-driven reading, so rows may come on one line, glued together, or reordered. The
 * caller passes one-line text and makes sure each label it reads occurs once (counterparty.ts).
 */
export function labelled(t: string, label: string, stops: readonly string[]): string | undefined {
  const m = new RegExp(`${label}\\s*`, 'i').exec(t);
  if (!m) return undefined;
  const v = until(t.slice(m.index + m[0].length), stops).trim();
  return v || undefined;
}

/** `text` up to the earliest of `stops` (regex sources, case-insensitive), or all of it. */
export function until(text: string, stops: readonly string[]): string {
  let end = text.length;
  for (const stop of stops) {
    const s = new RegExp(stop, 'i').exec(text);
    if (s && s.index < end) end = s.index;
  }
  return text.slice(0, end);
}

/** The value of a label in line-broken text: the rest of its line, or the next line when the label stands alone. */
export function lineValue(text: string, label: string): string | undefined {
  const m = new RegExp(`${label}[ \\t\\u00a0]*(?:\\r?\\n[ \\t\\u00a0]*)?([^\\r\\n]*)`, 'i').exec(text);
  const v = m?.[1]?.trim();
  return v ? v : undefined;
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
 * Payers whose credits are refunds or verifications, not customers (test/fixtures/upi-emails/REAL-2026.md ).
 * A customer's own VPA may well contain "refund" (refundking@okaxis): only known payers count.
 */
const REFUND_PAYERS = new Set(['gpayrefund-online@axisbank', 'goog-payments@axisbank']);

export function isRefundPayer(vpa: string | undefined): boolean {
  return vpa !== undefined && REFUND_PAYERS.has(vpa.toLowerCase());
}

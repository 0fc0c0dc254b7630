/**
 * What the counterparty wrote: the payer's registered name (up to 99 characters, any words), the name
 * segments of a UPI path, a remitter row. Banks print it verbatim inside their alert, so it is read
 * only where the bank puts it and never trusted to look like anything else.
 */
import type { ParseResult, SuspiciousCredit } from './bank.ts';
import { debitWording } from './direction.ts';
import { AMOUNT, VPA, credit, isRefundPayer, until, type CreditFields } from './text.ts';

/** Longer than any UPI registered name (99) plus the bank's own codes in a path. */
const MAX_FIELD = 160;
const AMOUNT_ANY_CASE = new RegExp(AMOUNT, 'i');
const MONEY_WORDS = /\b(?:credited|debited|received|sent|paid|transferred|deducted|withdrawn|spent|refunded|reversed|deposited|has a (?:credit|debit))\b/i;
/** Labels any bank prints before a value payd reads (reference, account, amount, date, counterparty rows). */
const LABEL_WORDS =
  /\b(?:UPI\s*Ref|Reference\s*(?:No|Number)|RRN|UTR|Transaction\s*(?:Details|Info|ID|reference)|Amount(?:\s*(?:Credited|Debited))?\s*:|Account\s*(?:Number|No\b|ending)|A\/c\b|Acct\b|Date(?:\s*&\s*Time)?\s*:|Sender\s*:|Remitter\s*:|Payer\s*(?:VPA|Name)|Beneficiary|VPA\s*:|Info\s*:|Avl\.?\s*Bal|available balance|UPI\s*:\s*\d|UPI\/)/i;

/** Why a counterparty's text could pass for the bank's: an amount, a money verb or a label; undefined when it cannot. */
export function suspicion(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > MAX_FIELD) return 'too_long';
  if (AMOUNT_ANY_CASE.test(value)) return 'amount';
  if (MONEY_WORDS.test(value)) return 'money_verb';
  if (LABEL_WORDS.test(value)) return 'label';
  return undefined;
}

/** Labels of the values payd reads that every template prints at most once; a second one came from someone else. */
const ONCE = [/UPI\/(?:[A-Z0-9]{2,4}\/)?\d{12}/gi, /reference\s*(?:no|number)/gi, /\bRRN\b/gi, /\bUPI\s*Ref(?:erence)?\b/gi, /\bUPI\s*:\s*\d/gi, /\bUTR\b/gi];

function occursTwice(t: string, label: RegExp): boolean {
  const re = new RegExp(label.source, label.flags.includes('g') ? label.flags : label.flags + 'g');
  return re.exec(t) !== null && re.exec(t) !== null;
}

/**
 * The checks every credit passes before it may settle anything: no counterparty field that reads like
 * the bank, each label the template reads printed once, and no debit wording anywhere (a payee's name
 * standing before the bank's own debit sentence can start with a whole credit sentence).
 */
export function counterpartyCheck(t: string, fields: Record<string, string | undefined>, labels: readonly RegExp[] = []): SuspiciousCredit | undefined {
  for (const [field, value] of Object.entries(fields)) {
    const why = suspicion(value);
    if (why) return { kind: 'suspicious', field, why };
  }
  for (const label of [...ONCE, ...labels]) if (occursTwice(t, label)) return { kind: 'suspicious', field: 'text', why: `repeated_label:${label.source}` };
  if (debitWording(t)) return { kind: 'suspicious', field: 'text', why: 'debit_wording' };
  return undefined;
}

const PATH = /^UPI\/(?:[A-Z0-9]{2,4}\/)?(\d{12})(?!\d)/i;
const FULL_VPA = new RegExp(`^${VPA}$`);
const IFSC = /^[A-Z]{4}0[A-Z0-9]{6}$/;
const CODES = /^(?:CR|DR|P2A|P2M)$/i;

/** Without trailing spaces and full stops; a loop, since /[\s.]+$/ is quadratic on ". . . ./". */
function trimEnd(s: string): string {
  let n = s.length;
  while (n > 0 && (s[n - 1] === '.' || s[n - 1] === ' ')) n--;
  return s.slice(0, n);
}

export interface UpiPath {
  utr: string;
  payerVpa?: string;
  payerName?: string;
  /** Every segment after the reference that is not the VPA, an IFSC or a code: the counterparty's text. */
  counterparty: string;
}

/**
 * "UPI/[code/]<utr>/<segments…>" as printed by ICICI, YES, IndusInd, Axis, at the start of `text`
 * (the slot after the bank's sentence); the segments end where the bank's next sentence begins.
 * The VPA is a segment that is one whole VPA (an anchored test: a long segment without `@` costs one
 * pass), the name the first segment of letters that is not a code.
 */
export function upiPath(text: string, end: (rest: string) => string): UpiPath | undefined {
  const m = PATH.exec(text);
  if (!m) return undefined;
  const rest = trimEnd(end(text.slice(m[0].length)));
  // Longer than any name: no need to look at its segments (and splitting 1 MB of "a/a/…" costs time).
  if (rest.length > 4 * MAX_FIELD) return { utr: m[1], counterparty: rest };
  const segments = rest
    .split('/')
    .map((s) => s.trim())
    .filter(Boolean);
  const payerVpa = segments.find((s) => s.length <= MAX_FIELD && FULL_VPA.test(s));
  const free = segments.filter((s) => s !== payerVpa && !IFSC.test(s) && !CODES.test(s));
  const payerName = free.find((s) => /[A-Za-z]{2}/.test(s));
  return { utr: m[1], ...(payerVpa ? { payerVpa } : {}), ...(payerName ? { payerName } : {}), counterparty: free.join('/') };
}

/**
 * The credit of a bank whose sentence ends "… towards UPI/<utr>/…" (IndusInd, YES): the UPI path
 * right after the bank's own sentence `c`, up to the first of `afterPath`.
 */
export function creditTowardsUpi(t: string, c: RegExpExecArray, afterPath: readonly string[], fields: Omit<CreditFields, 'utr' | 'payerVpa' | 'payerName'>): ParseResult {
  const towards = t.slice(c.index + c[0].length);
  if (!/^UPI\//i.test(towards)) return { kind: 'not_credit', reason: 'not_upi' };
  const path = upiPath(towards, (rest) => until(rest, afterPath));
  if (!path) return { kind: 'unparseable', reason: 'no_utr' };
  if (isRefundPayer(path.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  const bad = counterpartyCheck(t, { counterparty: path.counterparty });
  if (bad) return bad;
  return credit({ ...fields, utr: path.utr, ...(path.payerVpa ? { payerVpa: path.payerVpa } : {}), ...(path.payerName ? { payerName: path.payerName } : {}) });
}

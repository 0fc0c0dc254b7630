/**
 * Which way the money went, read from the bank's first money sentence (N-13 in test/fixtures/upi-emails/REAL-2026.md), and the
 * template sentence that holds it. Every pattern here is linear: literal alternatives, no nested or
 * overlapping quantifiers, and the sentence around a position is looked for within a bounded window.
 */
import type { NotACredit, ParseResult } from './bank.ts';
import { AMOUNT } from './text.ts';

const CREDIT_WORDS = String.raw`credited|has a credit|Amount Credited|received`;
const DEBIT_WORDS = String.raw`debited|deducted|spent|has a debit|Amount Debited|withdrawn|you have made|sent(?= (?:Rs|INR|₹))|Dr\.(?= (?:from|to|INR|Rs|₹))`;
/** Words that move money, in either direction. */
const MONEY_VERB = new RegExp(String.raw`\b(?:(${CREDIT_WORDS})|(${DEBIT_WORDS}))(?=\W|$)`, 'i');
/** What only an outward payment says, wherever it stands. */
const DEBIT_ANYWHERE = new RegExp(String.raw`\b(?:${DEBIT_WORDS})(?=\W|$)|\bfrom your (?:a\/c|acc(?:oun)?t)\b|\bbeneficiary\b`, 'i');

export interface MoneyVerb {
  index: number;
  credit: boolean;
}

/** The first word in the mail that moves money: the bank's own sentence comes before anything the counterparty wrote. */
export function firstMoneyVerb(t: string): MoneyVerb | undefined {
  const m = MONEY_VERB.exec(t);
  return m ? { index: m.index, credit: m[1] !== undefined } : undefined;
}

/** A debit word, "from your A/c" or "beneficiary" anywhere: a credit alert that says this is not only a credit. */
export function debitWording(t: string): boolean {
  return DEBIT_ANYWHERE.test(t);
}

/** How far before its money verb a template sentence may start, in characters (the longest is ~90). */
const LEAD = 400;

/**
 * The match of `template` that holds the first money verb, i.e. the bank's first money sentence read
 * as this template; null when that sentence is another template's (or a counterparty's copy further on).
 */
export function atVerb(t: string, verb: MoneyVerb, template: RegExp): RegExpExecArray | null {
  const from = Math.max(0, verb.index - LEAD);
  // Only the window around the verb is searched: one pass over a bounded slice per template.
  const m = new RegExp(template.source, template.flags.replace('g', '')).exec(t.slice(from, verb.index + LEAD));
  if (!m || m.index + from > verb.index || m.index + from + m[0].length <= verb.index) return null;
  m.index += from;
  return m;
}

const ABBREVIATIONS = /(?:\bRs|\bNo|\bno|\bRef|\bA\/c|\bAcct|\bMr|\bMs|\bDr|\bLtd|\bPvt|\bInc|\bvs|\d)$/;
/** A bank sentence is short; looking further would only cost time on hostile input. */
const SENTENCE_WINDOW = 1000;

/** The sentence around position i: ends at . ! ? before a space, but not after "Rs", "No", a digit… */
function sentenceAround(t: string, i: number): string {
  const boundary = (k: number) => /[.!?]/.test(t[k]) && (k + 1 === t.length || /\s/.test(t[k + 1])) && !ABBREVIATIONS.test(t.slice(Math.max(0, k - 6), k));
  let start = Math.max(0, i - SENTENCE_WINDOW);
  for (let k = i - 1; k > start; k--) {
    if (boundary(k)) {
      start = k + 1;
      break;
    }
  }
  let end = Math.min(t.length, i + SENTENCE_WINDOW);
  for (let k = i; k < end; k++) {
    if (boundary(k)) {
      end = k + 1;
      break;
    }
  }
  return t.slice(start, end).trim();
}

/**
 * What a mail is when no credit template holds its first money sentence. The direction comes from
 * that sentence, never from words elsewhere (a footer about OTPs or statements must not hide a
 * credit): a credit there is money in, kept for the operator unless that sentence says it is a
 * refund, a reversal, a card payment or money that went to someone else.
 */
export function classifyOther(t: string): ParseResult {
  const not = (reason: NotACredit['reason']): NotACredit => ({ kind: 'not_credit', reason });
  const verb = firstMoneyVerb(t);
  if (verb) {
    if (!verb.credit) return not('debit');
    const sentence = sentenceAround(t, verb.index);
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

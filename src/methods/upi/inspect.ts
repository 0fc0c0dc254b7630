/**
 * One raw e-mail -> what it means for payd (AlertVerdict). Order: who sent it (From domain),
 * what it says (bank template), whether the bank really sent it to us (DKIM, signed To), then
 * whose account. Mail that cannot be money in (debits, notices) never costs a DNS look-up.
 */
import { maskMatches } from './account-mask.ts';
import { createHash } from 'node:crypto';
import { htmlToText } from 'html-to-text';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AlertVerdict, ConfiguredAccount, InspectOptions } from './alert.ts';
import { alertTime } from './alert-time.ts';
import { authenticateAlert, type MailFacts } from './authenticate.ts';
import type { BankParser, ParseResult } from './banks/bank.ts';
import { BANKS, bankForAddress } from './banks/index.ts';
import { addressList } from './mail-addresses.ts';
import { fromLineAddresses, headerBlock } from './mail-headers.ts';

export async function inspectAlert(raw: Buffer, opts: InspectOptions): Promise<AlertVerdict> {
  let mail: ParsedMail;
  try {
    // skipHtmlToText: the HTML part is flattened once, below, whether or not a text part exists.
    mail = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true, skipHtmlToText: true });
  } catch {
    return { kind: 'ignore', reason: 'malformed' };
  }
  const facts = mailFacts(mail);
  const bodies = bodyTexts(mail);
  const subject = mail.subject ?? '';

  // Any From line naming a bank makes it that bank's mail, so a prepended From is caught by authentication.
  const bank = fromLineAddresses(headerBlock(raw) ?? raw.toString('latin1')).map(bankForAddress).find((b) => b !== undefined);
  if (!bank) {
    // A bank credit from a domain that is not the bank's: a look-alike, or a forwarded copy. Keep it for the operator.
    const claimed = BANKS.find((b) => CLAIMS_CREDIT.has(best(b, bodies, subject).kind));
    return claimed
      ? { kind: 'reject', reason: 'lookalike_sender', bank: claimed.id, detail: { from: facts.fromAddresses } }
      : { kind: 'ignore', reason: 'unknown_sender' };
  }
  const localPart = facts.fromAddresses.length === 1 ? facts.fromAddresses[0].split('@')[0].toLowerCase() : '';
  if (bank.marketingSenders?.includes(localPart)) return { kind: 'ignore', reason: 'marketing', bank: bank.id };

  const parsed = best(bank, bodies, subject);
  // Debits and notices cannot be money in: no DNS look-up for them.
  if (parsed.kind === 'not_credit' && !MONEY_IN.has(parsed.reason) && parsed.reason !== 'unrecognized') {
    return { kind: 'ignore', reason: parsed.reason, bank: bank.id };
  }

  const auth = await authenticateAlert(raw, facts, bank, opts);
  if (parsed.kind === 'not_credit' && parsed.reason === 'unrecognized') {
    // Only a mail proven to be the bank's counts as template churn; anything else is noise.
    return auth.ok ? { kind: 'unread', bank: bank.id, detail: { subject } } : { kind: 'ignore', reason: 'unrecognized', bank: bank.id };
  }
  const bankId = bank.id;
  const reject = (reason: string, detail?: Record<string, unknown>): AlertVerdict => ({ kind: 'reject', reason, bank: bankId, ...(detail ? { detail } : {}) });
  if (!auth.ok && auth.retry) return { kind: 'retry', reason: auth.reason, bank: bank.id, ...(auth.detail ? { detail: auth.detail } : {}) };
  if (!auth.ok) return reject(auth.reason, auth.detail);
  // From here on the bank's DKIM signature verified: its raw bytes are kept whole.
  const keep = (reason: string, detail?: Record<string, unknown>): AlertVerdict => ({ kind: 'reject', reason, bank: bankId, ...(detail ? { detail } : {}), authenticated: true });
  // Money in that is not a customer's UPI payment (refund, reversal, NEFT…): kept, never settled.
  if (parsed.kind === 'not_credit') return keep(parsed.reason, { subject });
  if (parsed.kind === 'unparseable') return keep('unparseable', { why: parsed.reason, subject });
  // The counterparty's own text reads like the bank's: kept with its raw message, never settled.
  if (parsed.kind === 'suspicious') return keep('suspicious_counterparty', { field: parsed.field, why: parsed.why, subject });
  if (!accountMatches(bank, parsed.accountMask, opts.accounts)) {
    return keep('other_account', { accountMask: parsed.accountMask, amountMinor: parsed.amountMinor.toString(), ...(parsed.utr ? { utr: parsed.utr } : {}) });
  }

  const occurredAt = alertTime(parsed, mail.date, opts.receivedAt);
  if (occurredAt === undefined) return keep('unparseable', { why: 'no_date', subject });
  const utr = parsed.utr ?? derivedId(bank, parsed.accountMask, parsed.amountMinor, occurredAt, auth.signature ?? bodies.join('\n'));
  const messageId = auth.restoredMessageId ?? mail.messageId;
  return {
    kind: 'credit',
    bank: bank.id,
    amountMinor: parsed.amountMinor,
    utr,
    utrDerived: parsed.utr === undefined,
    accountMask: parsed.accountMask,
    ...(parsed.payerVpa ? { payerVpa: parsed.payerVpa } : {}),
    ...(parsed.payerName ? { payerName: parsed.payerName } : {}),
    occurredAt,
    ...(messageId ? { messageId } : {}),
    auth: { dkimDomain: auth.dkimDomain, ...(auth.selector ? { selector: auth.selector } : {}), dmarc: auth.dmarc, verified: auth.verified },
  };
}

/** Table rows become lines and their cells stay apart ("Amount Credited:   INR 40.00"), as mail clients show them. */
const FLATTEN = { wordwrap: false as const, selectors: [{ selector: 'table', format: 'dataTable' }] };

/**
 * Text part and flattened HTML part: some banks put the alert only in one of them (Federal's text
 * part is a placeholder; HDFC and ICICI send HTML only). html-to-text is mailparser's own flattener.
 */
function bodyTexts(mail: ParsedMail): string[] {
  const out: string[] = [];
  if (mail.text?.trim()) out.push(mail.text);
  if (typeof mail.html === 'string' && mail.html.trim()) out.push(htmlToText(mail.html, FLATTEN));
  return out;
}

/** Readings that are money into an account, though not a customer's UPI payment. */
const MONEY_IN = new Set(['refund', 'reversal', 'not_upi']);

/** A suspicious reading of either body outranks a clean one: both bodies are the same alert. */
const RANK: Record<ParseResult['kind'], number> = { suspicious: 4, credit: 3, not_credit: 2, unparseable: 1 };
const CLAIMS_CREDIT = new Set<ParseResult['kind']>(['credit', 'suspicious']);

/** The most definite reading over all bodies; an 'unrecognized' body (a placeholder) counts least. */
function best(bank: BankParser, bodies: string[], subject: string): ParseResult {
  const score = (r: ParseResult) => (r.kind === 'not_credit' && r.reason === 'unrecognized' ? 0 : RANK[r.kind]);
  let pick: ParseResult = { kind: 'not_credit', reason: 'unrecognized' };
  for (const body of bodies) {
    const r = bank.parse(body, subject);
    if (score(r) > score(pick)) pick = r;
  }
  return pick;
}

/** The alert's masked account is one of the configured accounts of its bank (account-mask.ts). */
export function accountMatches(bank: BankParser, mask: string, accounts: ConfiguredAccount[]): boolean {
  return accounts.some((a) => a.bank === bank.id && maskMatches(mask, a.accountEnding));
}

/** SBI prints no UTR: the DKIM signature (or the body) tells two same-amount alerts apart, yet is stable per message. */
function derivedId(bank: BankParser, mask: string, amountMinor: bigint, occurredAt: number, uniq: string): string {
  const day = new Date(occurredAt + 330 * 60_000).toISOString().slice(0, 10);
  const hash = createHash('sha256').update([bank.id, mask, amountMinor.toString(), day, uniq].join('\n')).digest('hex');
  return `${bank.id.toUpperCase()}-${hash.slice(0, 24)}`;
}

function mailFacts(mail: ParsedMail): MailFacts {
  const header = (key: string) => mail.headerLines.find((h) => h.key === key)?.line.replace(/^[^:]*:/, '').replace(/\r?\n[ \t]+/g, ' ').trim();
  const googleOriginal = header('x-google-original-message-id');
  return {
    fromHeaderCount: mail.headerLines.filter((h) => h.key === 'from').length,
    fromAddresses: addressList(mail.from),
    toAddresses: addressList(mail.to),
    ...(mail.messageId ? { messageId: mail.messageId } : {}),
    ...(googleOriginal ? { googleOriginalMessageId: googleOriginal } : {}),
  };
}

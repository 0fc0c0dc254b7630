/**
 * One raw e-mail -> what it means for payd (AlertVerdict). Order: who sent it (From domain),
 * what it says (bank template), whose account, then whether the bank really sent it (DKIM).
 * Mail that cannot settle anything anyway (debits, other accounts) never costs a DNS look-up.
 */
import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { AlertVerdict, ConfiguredAccount, InspectOptions } from './alert.ts';
import { alertTime } from './alert-time.ts';
import { authenticateAlert, type MailFacts } from './authenticate.ts';
import type { BankParser, ParseResult } from './banks/bank.ts';
import { BANKS, bankForAddress } from './banks/index.ts';
import { htmlToText } from './html-text.ts';

export async function inspectAlert(raw: Buffer, opts: InspectOptions): Promise<AlertVerdict> {
  let mail: ParsedMail;
  try {
    mail = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true });
  } catch {
    return { kind: 'ignore', reason: 'malformed' };
  }
  const facts = mailFacts(mail);
  const bodies = bodyTexts(mail);
  const subject = mail.subject ?? '';

  // Any From line naming a bank makes it that bank's mail, so a prepended From is caught by authentication.
  const bank = fromLineAddresses(mail).map(bankForAddress).find((b) => b !== undefined);
  if (!bank) {
    // A bank credit from a domain that is not the bank's: a look-alike, or a forwarded copy. Keep it for the operator.
    const claimed = BANKS.find((b) => best(b, bodies, subject).kind === 'credit');
    return claimed
      ? { kind: 'reject', reason: 'lookalike_sender', bank: claimed.id, detail: { from: facts.fromAddresses } }
      : { kind: 'ignore', reason: 'unknown_sender' };
  }
  const localPart = facts.fromAddresses.length === 1 ? facts.fromAddresses[0].split('@')[0].toLowerCase() : '';
  if (bank.marketingSenders?.includes(localPart)) return { kind: 'ignore', reason: 'marketing', bank: bank.id };

  const parsed = best(bank, bodies, subject);
  if (parsed.kind === 'not_credit') return { kind: 'ignore', reason: parsed.reason, bank: bank.id };
  if (parsed.kind === 'credit' && !accountMatches(bank, parsed.accountMask, opts.accounts)) {
    return { kind: 'ignore', reason: 'other_account', bank: bank.id };
  }

  const auth = await authenticateAlert(raw, facts, bank, opts);
  if (!auth.ok && auth.retry) return { kind: 'retry', reason: auth.reason };
  if (!auth.ok) return { kind: 'reject', reason: auth.reason, bank: bank.id, ...(auth.detail ? { detail: auth.detail } : {}) };
  if (parsed.kind === 'unparseable') return { kind: 'reject', reason: 'unparseable', bank: bank.id, detail: { why: parsed.reason, subject } };

  const occurredAt = alertTime(parsed, mail.date, opts.receivedAt);
  if (occurredAt === undefined) return { kind: 'reject', reason: 'unparseable', bank: bank.id, detail: { why: 'no_date', subject } };
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

/** Text part and flattened HTML part: some banks put the alert only in one of them. */
function bodyTexts(mail: ParsedMail): string[] {
  const out: string[] = [];
  if (mail.text?.trim()) out.push(mail.text);
  if (typeof mail.html === 'string' && mail.html.trim()) out.push(htmlToText(mail.html));
  return out;
}

const RANK: Record<ParseResult['kind'], number> = { credit: 3, not_credit: 2, unparseable: 1 };

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

/** The alert shows the last 3–6 digits; the operator configured the last 3–6 digits. */
export function accountMatches(bank: BankParser, mask: string, accounts: ConfiguredAccount[]): boolean {
  const shown = /(\d+)$/.exec(mask)?.[1] ?? '';
  return accounts.some((a) => {
    if (a.bank !== bank.id || shown.length < 3) return false;
    return shown.length >= a.accountEnding.length ? shown.endsWith(a.accountEnding) : a.accountEnding.endsWith(shown);
  });
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
    fromAddresses: addresses(mail.from),
    ...(mail.messageId ? { messageId: mail.messageId } : {}),
    ...(googleOriginal ? { googleOriginalMessageId: googleOriginal } : {}),
  };
}

function addresses(obj: AddressObject | AddressObject[] | undefined): string[] {
  const out: string[] = [];
  const walk = (list: { address?: string; group?: unknown[] }[]) => {
    for (const a of list) {
      if (a.address) out.push(a.address);
      if (Array.isArray(a.group)) walk(a.group as { address?: string }[]);
    }
  };
  for (const o of obj === undefined ? [] : Array.isArray(obj) ? obj : [obj]) walk(o.value);
  return out;
}

/** Addresses on every raw From line (mailparser keeps only the last line). */
function fromLineAddresses(mail: ParsedMail): string[] {
  return mail.headerLines.filter((h) => h.key === 'from').flatMap((h) => h.line.match(/[^\s<>"',;:()]+@[^\s<>"',;:()]+/g) ?? []);
}

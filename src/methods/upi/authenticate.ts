/**
 * Is this mail really from the bank, and to us? test/fixtures/upi-emails/README.md §2.1: one From, a known sender
 * domain, DMARC pass through an aligned DKIM signature of the bank's own domain, no `l=`, and the
 * signature covers From, Subject, Date and To; the signed To names one of our alert recipients,
 * so a genuine alert sent to someone else and forwarded to us never counts. SPF never counts: a mailbox reader cannot know the bank's connecting IP, so
 * mailauth is called without ip/sender.
 */
import { authenticate } from 'mailauth';
import type { DKIMResult, DNSResolver } from 'mailauth';
import { simpleParser } from 'mailparser';
import type { DnsResolver } from './alert.ts';
import type { BankParser } from './banks/bank.ts';
import { domainWithin } from './banks/index.ts';
import { addressList } from './mail-addresses.ts';

/** Header facts the inspector already has from mailparser. */
export interface MailFacts {
  /** Raw `From:` header lines in the message (duplicates count). */
  fromHeaderCount: number;
  /** Addresses in the (single) From header. */
  fromAddresses: string[];
  /** Addresses of every To header line (used only when DKIM is switched off). */
  toAddresses: string[];
  messageId?: string;
  googleOriginalMessageId?: string;
}

export interface AuthOptions {
  dkimRequired: boolean;
  resolver: DnsResolver;
  /** Addresses the bank sends our alerts to; compared case-insensitively. */
  alertRecipients: string[];
}

export type AuthVerdict =
  | { ok: true; verified: boolean; dkimDomain: string; selector?: string; dmarc: string; signature?: string; restoredMessageId?: string }
  | { ok: false; retry: false; reason: string; detail?: Record<string, unknown> }
  | { ok: false; retry: true; reason: string; detail?: Record<string, unknown> };

const REQUIRED_SIGNED = ['from', 'subject', 'date'];
const GMAIL_BROKEN_ID = 'SMTPIN_ADDED_BROKEN@mx.google.com';

export async function authenticateAlert(raw: Buffer, facts: MailFacts, bank: BankParser, opts: AuthOptions): Promise<AuthVerdict> {
  if (facts.fromHeaderCount !== 1 || facts.fromAddresses.length !== 1) {
    return { ok: false, retry: false, reason: 'multiple_from', detail: { fromHeaders: facts.fromHeaderCount, fromAddresses: facts.fromAddresses } };
  }
  const fromDomain = facts.fromAddresses[0].split('@').pop() ?? '';
  if (!domainWithin(fromDomain, bank.senderDomains)) {
    return { ok: false, retry: false, reason: 'lookalike_sender', detail: { fromDomain } };
  }
  if (!opts.dkimRequired) {
    // Nothing is signed: the visible To is all there is (the operator accepted forged-mail risk).
    const to = facts.toAddresses;
    if (!to.some((a) => isRecipient(a, opts.alertRecipients))) return { ok: false, retry: false, reason: 'recipient_mismatch', detail: { to } };
    return { ok: true, verified: false, dkimDomain: '', dmarc: 'skipped' };
  }

  const resolver = bankScopedResolver(opts.resolver, bank, fromDomain);
  const first = await verify(raw, bank, resolver, opts.alertRecipients);
  // Gmail replaces a Message-ID it dislikes and keeps the signed one aside (test/fixtures/upi-emails/README.md §1.1); only then try it.
  if (!first.ok && !first.retry && facts.messageId?.includes(GMAIL_BROKEN_ID) && facts.googleOriginalMessageId) {
    const second = await verify(withMessageId(raw, facts.googleOriginalMessageId), bank, resolver, opts.alertRecipients);
    if (second.ok) return { ...second, restoredMessageId: facts.googleOriginalMessageId };
  }
  return first;
}

/**
 * Only the bank's own DKIM keys and the From domain's DMARC record are looked up; any other
 * name (an ESP's second signature, a signature an attacker added with a name server that never
 * answers) is "no record" at once, so it can neither delay nor park a message.
 */
export function bankScopedResolver(resolver: DnsResolver, bank: BankParser, fromDomain: string): DnsResolver {
  const from = fromDomain.toLowerCase();
  return (name, rrtype) => {
    const n = name.toLowerCase().replace(/\.$/, '');
    const key = /\._domainkey\.(.+)$/.exec(n);
    const dmarc = /^_dmarc\.(.+)$/.exec(n);
    const allowed = key ? domainWithin(key[1], bank.senderDomains) : dmarc ? from === dmarc[1] || from.endsWith('.' + dmarc[1]) : false;
    if (!allowed) return Promise.reject(Object.assign(new Error(`not looked up: ${name}`), { code: 'ENOTFOUND' }));
    return resolver(name, rrtype);
  };
}

async function verify(raw: Buffer, bank: BankParser, resolver: DnsResolver, recipients: string[]): Promise<AuthVerdict> {
  let res;
  try {
    res = await authenticate(raw, { resolver: resolver as DNSResolver, disableArc: true, disableBimi: true, mta: 'payd' });
  } catch (err) {
    return { ok: false, retry: false, reason: 'auth_error', detail: { error: (err as Error).message } };
  }
  const results = (res.dkim.results ?? []) as Signature[];
  const detail = { dmarc: res.dmarc ? res.dmarc.status.result : 'not_evaluated', dkim: results.map(summary) };
  // mailauth does not evaluate DMARC when From has several addresses or lines.
  if (res.dmarc === false) return { ok: false, retry: false, reason: 'multiple_from', detail };

  const bankSigs = results.filter((r) => r.status.aligned && domainWithin(r.signingDomain, bank.senderDomains));
  const ours = bankSigs.filter((r) => r.status.result === 'pass');
  const good = ours.find((r) => r.canonBodyLengthLimited === false && signsRequired(r));
  const dmarc = res.dmarc.status.result;
  if (good && dmarc === 'pass') {
    const binding = await recipientBinding(good, recipients);
    if (binding) return { ok: false, retry: false, reason: binding.reason, detail: { ...detail, ...binding.detail } };
    return { ok: true, verified: true, dkimDomain: good.signingDomain, selector: good.selector, dmarc, signature: good.signature };
  }
  // Only the bank's own key or the DMARC record being unreachable is worth another look: an unrelated domain's DNS failing must not turn a forgery into a retry.
  if (dmarc === 'temperror' || (!good && bankSigs.some((r) => r.status.result === 'temperror'))) {
    return { ok: false, retry: true, reason: 'dns_temperror', detail };
  }
  const reason = good
    ? `dmarc_${dmarc}` // e.g. no DMARC record published: 'dmarc_none'
    : ours.some((r) => r.canonBodyLengthLimited !== false)
      ? 'dkim_body_length_limited'
      : ours.length
        ? 'dkim_headers_unsigned'
        : bankSigs.length
          ? 'dkim_fail'
          : results.some((r) => r.signingDomain)
            ? 'dkim_not_aligned' // signed, but by someone other than the bank (never looked up)
            : 'dkim_missing';
  return { ok: false, retry: false, reason, detail };
}

type Signature = DKIMResult & { signature?: string; canonBodyLengthLimited?: boolean; signingHeaders?: { keys: string; headers?: string[] } };

function signedKeys(r: Signature): string[] {
  return (r.signingHeaders?.keys ?? '').toLowerCase().split(/[:\s]+/);
}

function signsRequired(r: Signature): boolean {
  const keys = signedKeys(r);
  return REQUIRED_SIGNED.every((h) => keys.includes(h));
}

/**
 * The alert must be addressed to us in a To header the bank's signature covers: a genuine alert
 * the bank sent to someone else (same bank, same last digits) replayed into our mailbox fails here.
 * Undefined when bound.
 */
async function recipientBinding(sig: Signature, recipients: string[]): Promise<{ reason: string; detail: Record<string, unknown> } | undefined> {
  // signingHeaders.headers are the exact header lines the signature covers (bottom-up instances).
  const signedTo = (sig.signingHeaders?.headers ?? []).filter((line) => /^to[ \t]*:/i.test(line));
  if (!signedKeys(sig).includes('to') || signedTo.length === 0) return { reason: 'recipient_unsigned', detail: { signedHeaders: sig.signingHeaders?.keys } };
  const to: string[] = [];
  for (const line of signedTo) to.push(...(await headerAddresses(line)));
  if (!to.some((a) => isRecipient(a, recipients))) return { reason: 'recipient_mismatch', detail: { to } };
  return undefined;
}

/** Addresses in one raw header line, parsed as mailparser parses To (quoted names, groups, RFC 2047). */
async function headerAddresses(line: string): Promise<string[]> {
  const mail = await simpleParser(Buffer.from(`${line.replace(/\r?\n$/, '')}\r\n\r\n`, 'latin1'));
  return addressList(mail.to);
}

function isRecipient(address: string, recipients: string[]): boolean {
  const a = address.trim().toLowerCase();
  return recipients.some((r) => r.trim().toLowerCase() === a);
}

function summary(r: Signature): Record<string, unknown> {
  return { d: r.signingDomain, s: r.selector, result: r.status.result, comment: r.status.comment, aligned: r.status.aligned, l: r.canonBodyLengthLimited, h: r.signingHeaders?.keys };
}

/** The message with its first Message-ID header's value replaced (header block only, bytes kept as latin1). */
export function withMessageId(raw: Buffer, value: string): Buffer {
  const text = raw.toString('latin1');
  const end = /\r?\n\r?\n/.exec(text);
  const head = end ? text.slice(0, end.index) : text;
  const replaced = head.replace(/^(Message-ID)[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*/im, (_m, name: string) => `${name}: ${value}`);
  return Buffer.from(replaced + text.slice(head.length), 'latin1');
}

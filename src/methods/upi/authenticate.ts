/**
 * Is this mail really from the bank? Fixtures README §2.1: one From, a known sender domain,
 * DMARC pass through an aligned DKIM signature of the bank's own domain, no `l=`, and the
 * signature covers From, Subject and Date. SPF never counts: a mailbox reader cannot know the
 * bank's connecting IP, so mailauth is called without ip/sender.
 */
import { authenticate } from 'mailauth';
import type { DKIMResult, DNSResolver } from 'mailauth';
import type { DnsResolver } from './alert.ts';
import type { BankParser } from './banks/bank.ts';
import { domainWithin } from './banks/index.ts';

/** Header facts the inspector already has from mailparser. */
export interface MailFacts {
  /** Raw `From:` header lines in the message (duplicates count). */
  fromHeaderCount: number;
  /** Addresses in the (single) From header. */
  fromAddresses: string[];
  messageId?: string;
  googleOriginalMessageId?: string;
}

export type AuthVerdict =
  | { ok: true; verified: boolean; dkimDomain: string; selector?: string; dmarc: string; signature?: string; restoredMessageId?: string }
  | { ok: false; retry: false; reason: string; detail?: Record<string, unknown> }
  | { ok: false; retry: true; reason: string };

const REQUIRED_SIGNED = ['from', 'subject', 'date'];
const GMAIL_BROKEN_ID = 'SMTPIN_ADDED_BROKEN@mx.google.com';

export async function authenticateAlert(
  raw: Buffer,
  facts: MailFacts,
  bank: BankParser,
  opts: { dkimRequired: boolean; resolver: DnsResolver },
): Promise<AuthVerdict> {
  if (facts.fromHeaderCount !== 1 || facts.fromAddresses.length !== 1) {
    return { ok: false, retry: false, reason: 'multiple_from', detail: { fromHeaders: facts.fromHeaderCount, fromAddresses: facts.fromAddresses } };
  }
  const fromDomain = facts.fromAddresses[0].split('@').pop() ?? '';
  if (!domainWithin(fromDomain, bank.senderDomains)) {
    return { ok: false, retry: false, reason: 'lookalike_sender', detail: { fromDomain } };
  }
  if (!opts.dkimRequired) return { ok: true, verified: false, dkimDomain: '', dmarc: 'skipped' };

  const first = await verify(raw, bank, opts.resolver);
  // Gmail replaces a Message-ID it dislikes and keeps the signed one aside (README §1.1); only then try it.
  if (!first.ok && !first.retry && facts.messageId?.includes(GMAIL_BROKEN_ID) && facts.googleOriginalMessageId) {
    const second = await verify(withMessageId(raw, facts.googleOriginalMessageId), bank, opts.resolver);
    if (second.ok) return { ...second, restoredMessageId: facts.googleOriginalMessageId };
  }
  return first;
}

async function verify(raw: Buffer, bank: BankParser, resolver: DnsResolver): Promise<AuthVerdict> {
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

  const ours = results.filter((r) => r.status.result === 'pass' && r.status.aligned && domainWithin(r.signingDomain, bank.senderDomains));
  const good = ours.find((r) => r.canonBodyLengthLimited === false && signsRequired(r));
  const dmarc = res.dmarc.status.result;
  if (good && dmarc === 'pass') {
    return { ok: true, verified: true, dkimDomain: good.signingDomain, selector: good.selector, dmarc, signature: good.signature };
  }
  if (dmarc === 'temperror' || results.some((r) => r.status.result === 'temperror')) {
    return { ok: false, retry: true, reason: 'dns_temperror' };
  }
  const reason = good
    ? `dmarc_${dmarc}` // e.g. no DMARC record published: 'dmarc_none'
    : ours.some((r) => r.canonBodyLengthLimited !== false)
      ? 'dkim_body_length_limited'
      : ours.length
        ? 'dkim_headers_unsigned'
        : results.some((r) => r.status.result === 'pass')
          ? 'dkim_not_aligned'
          : results.some((r) => r.signingDomain)
            ? 'dkim_fail'
            : 'dkim_missing';
  return { ok: false, retry: false, reason, detail };
}

type Signature = DKIMResult & { signature?: string; canonBodyLengthLimited?: boolean; signingHeaders?: { keys: string } };

function signsRequired(r: Signature): boolean {
  const keys = (r.signingHeaders?.keys ?? '').toLowerCase().split(/[:\s]+/);
  return REQUIRED_SIGNED.every((h) => keys.includes(h));
}

function summary(r: Signature): Record<string, unknown> {
  return { d: r.signingDomain, s: r.selector, result: r.status.result, comment: r.status.comment, aligned: r.status.aligned, l: r.canonBodyLengthLimited };
}

/** The message with its first Message-ID header's value replaced (header block only, bytes kept as latin1). */
export function withMessageId(raw: Buffer, value: string): Buffer {
  const text = raw.toString('latin1');
  const end = /\r?\n\r?\n/.exec(text);
  const head = end ? text.slice(0, end.index) : text;
  const replaced = head.replace(/^(Message-ID)[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*/im, (_m, name: string) => `${name}: ${value}`);
  return Buffer.from(replaced + text.slice(head.length), 'latin1');
}

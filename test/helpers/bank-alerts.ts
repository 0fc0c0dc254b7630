// DKIM-signed bank alerts for tests: the key is generated here and served from a zone
// the test controls (never a bank's key).
import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { DnsResolver } from '../../src/methods/upi/alert.ts';

/**
 * dkimSign, checked. mailauth's dkimSign reads the clock twice when it is not given `signTime`
 * (once for the t= it hashes, once for the t= it writes): about 1 signature in 300 came out
 * invalid that way (7 of 2000; 0 of 2000 with signTime, mailauth 4.13.3). It is given signTime,
 * so a signature that does not verify is a bug in the signer or the message: it throws, never
 * signs again. Production verification is untouched by this.
 */
export async function signChecked(raw: Buffer, options: Parameters<typeof dkimSign>[1], resolver: DnsResolver): Promise<Buffer> {
  const res = await dkimSign(raw, { ...options, signTime: new Date() } as Parameters<typeof dkimSign>[1]);
  if (res.errors.length) throw res.errors[0];
  const out = Buffer.concat([Buffer.from(res.signatures), raw]);
  const check = await dkimVerify(out, { resolver: resolver as never });
  const status = check.results[0]?.status;
  if (status?.result !== 'pass') throw new Error(`test signer: mailauth does not verify its own signature (${status?.result ?? 'no result'}: ${status?.comment ?? ''})\n${res.signatures}`);
  return out;
}

const SELECTOR = 'paydtest';
const DOMAIN = 'hdfcbank.bank.in';

export function signingKit() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const zone: Record<string, string[][]> = {
    [`${SELECTOR}._domainkey.${DOMAIN}`]: [[`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`]],
    [`_dmarc.${DOMAIN}`]: [['v=DMARC1; p=reject']],
  };
  // The shape of dns.promises.resolve; "no record" is ENOTFOUND, as mailauth expects.
  const resolver: DnsResolver = async (name, rrtype) => {
    const hit = zone[name.toLowerCase()];
    if (rrtype === 'TXT' && hit) return hit;
    throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const sign = async (raw: Buffer): Promise<Buffer> => {
    const key = { signingDomain: DOMAIN, selector: SELECTOR, privateKey: pem };
    return signChecked(raw, { ...key, signatureData: [key] }, resolver);
  };
  return { resolver, sign, zone };
}

export interface SignatureSpec {
  domain: string;
  selector: string;
  /** h= as mailauth takes it (colon-separated); default: mailauth's list, which includes To. */
  headerList?: string;
}

/**
 * Signs with any number of (domain, selector) keys made here, each published in `zone` (plus a
 * p=reject DMARC record per domain). Signatures are added in order, each on top of the last,
 * as the bank signs first and its e-mail provider (aclmobile.net for HDFC) second.
 */
export function dkimSigner() {
  const zone: Record<string, string[][]> = {};
  const pems = new Map<string, string>();
  const keyFor = (domain: string, selector: string): string => {
    // DNS names are case-insensitive and the resolvers look them up in lower case (HDFC's provider's selector has capitals).
    const id = `${selector}._domainkey.${domain}`.toLowerCase();
    let pem = pems.get(id);
    if (!pem) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      pems.set(id, pem);
      zone[id] = [[`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`]];
      zone[`_dmarc.${domain}`.toLowerCase()] ??= [['v=DMARC1; p=reject']];
    }
    return pem;
  };
  const sign = async (raw: Buffer, specs: SignatureSpec[]): Promise<Buffer> => {
    let out = raw;
    for (const s of specs) {
      const key = { signingDomain: s.domain, selector: s.selector, privateKey: keyFor(s.domain, s.selector) };
      out = await signChecked(out, { ...key, ...(s.headerList ? { headerList: s.headerList as unknown as string[] } : {}), signatureData: [key] }, zoneResolver);
    }
    return out;
  };
  // The check answers from the zone directly (names the test silences in its DNS server included).
  async function zoneResolver(name: string, rrtype: string): Promise<unknown> {
    const hit = zone[name.toLowerCase()];
    if (rrtype === 'TXT' && hit) return hit;
    throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  }
  return { zone, sign, keyFor };
}

/** The header list real HDFC `.bank.in` alerts sign (test/fixtures/upi-emails/REAL-2026.md §1.2, nobelnrj/myhome fixtures). */
export const HDFC_SIGNED_HEADERS = 'content-type:message-id:subject:date:mime-version:to:from';

/** An alert in HDFC's current (.bank.in) credit template, dated today in IST. */
export function hdfcCredit(o: { rupees: string; utr: string; account: string; to?: string }): Buffer {
  const ist = new Date(Date.now() + 330 * 60_000); // the bank writes IST dates
  const pad = (n: number) => String(n).padStart(2, '0');
  const bodyDate = `${pad(ist.getUTCDate())}-${pad(ist.getUTCMonth() + 1)}-${pad(ist.getUTCFullYear() % 100)}`;
  const header = new Date().toUTCString().replace('GMT', '+0000');
  return Buffer.from(
    [
      'From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>',
      `To: ${o.to ?? 'merchant.payd@example.com'}`,
      'Subject: View: Account update for your HDFC Bank A/c',
      `Date: ${header}`,
      `Message-ID: <${o.utr}.test@comm.hdfcbank.bank.in>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=UTF-8',
      'Content-Transfer-Encoding: 7bit',
      '',
      'Dear Customer,',
      '',
      `We're writing to inform you that Rs.${o.rupees} has been successfully credited to your HDFC Bank account ending in ${o.account}.`,
      '',
      'Transaction Details:',
      `a. Date: ${bodyDate}`,
      'b. Sender: ASHA VERMA (VPA: asha.verma@okaxis)',
      `c. UPI Reference No.: ${o.utr}`,
      '',
      'Warm Regards,',
      'HDFC Bank',
      '',
    ].join('\r\n'),
  );
}

/** One case of test/fixtures/upi-emails/real-2026.json: a bank's alert body as the source quotes it. */
export interface AlertCase {
  id: string;
  from: string;
  subject: string;
  text?: string;
  html?: string;
}

/**
 * A mail carrying a real alert body: from the bank's sender, to `to`, text or HTML only, UTF-8
 * in base64 (bodies hold ₹, typographic apostrophes and NBSPs). Dated now.
 */
export function alertMail(c: AlertCase, to = 'merchant.payd@example.com', messageId = `<${Math.random().toString(36).slice(2)}@bank.test>`): Buffer {
  const body = Buffer.from((c.html ?? c.text ?? '').replace(/\n/g, '\r\n'), 'utf8').toString('base64');
  const subject = /^[\x20-\x7e]*$/.test(c.subject) ? c.subject : `=?UTF-8?B?${Buffer.from(c.subject, 'utf8').toString('base64')}?=`;
  return Buffer.from(
    [
      `From: ${c.from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
      `Message-ID: ${messageId}`,
      'MIME-Version: 1.0',
      `Content-Type: text/${c.html ? 'html' : 'plain'}; charset=UTF-8`,
      'Content-Transfer-Encoding: base64',
      '',
      ...(body.match(/.{1,76}/g) ?? []),
      '',
    ].join('\r\n'),
  );
}

/** The From address's domain (the signing domain a bank aligns with). */
export const fromDomain = (from: string): string => /@([^>\s]+)>?\s*$/.exec(from)![1].toLowerCase();

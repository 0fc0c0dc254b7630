// DKIM-signed bank alerts for tests: the key is generated here and served from a zone
// the test controls (never a bank's key).
import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import type { DnsResolver } from '../../src/methods/upi/alert.ts';

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
    const res = await dkimSign(raw, { ...key, signatureData: [key] });
    if (res.errors.length) throw res.errors[0];
    return Buffer.concat([Buffer.from(res.signatures), raw]);
  };
  return { resolver, sign, zone };
}

/** An alert in HDFC's current (.bank.in) credit template, dated today in IST. */
export function hdfcCredit(o: { rupees: string; utr: string; account: string }): Buffer {
  const ist = new Date(Date.now() + 330 * 60_000); // the bank writes IST dates
  const pad = (n: number) => String(n).padStart(2, '0');
  const bodyDate = `${pad(ist.getUTCDate())}-${pad(ist.getUTCMonth() + 1)}-${pad(ist.getUTCFullYear() % 100)}`;
  const header = new Date().toUTCString().replace('GMT', '+0000');
  return Buffer.from(
    [
      'From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>',
      'To: merchant.payd@example.com',
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

/** Test-only DKIM kit: a key pair made here, a fake DNS zone serving it, and fixture loading. */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { signChecked } from './bank-alerts.ts';
import type { ConfiguredAccount, DnsResolver, InspectOptions } from '../../src/methods/upi/alert.ts';

const FIXTURES = new URL('../fixtures/upi-emails/', import.meta.url);

export function fixture(name: string): Buffer {
  return readFileSync(new URL(name, FIXTURES));
}

export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
}

/** The accounts the sample alerts are addressed to (ICICI shows only 3 digits, SBI 6). */
export const SAMPLE_ACCOUNTS: ConfiguredAccount[] = [
  { bank: 'hdfc', accountEnding: '4321' },
  { bank: 'icici', accountEnding: '4321' },
  { bank: 'sbi', accountEnding: '654321' },
  { bank: 'axis', accountEnding: '4321' },
  { bank: 'kotak', accountEnding: '4321' },
  { bank: 'yes', accountEnding: '4321' },
  { bank: 'indusind', accountEnding: '4321' },
  { bank: 'federal', accountEnding: '4321' },
];

/** The address every sample alert is sent to (their To header). */
export const SAMPLE_RECIPIENT = 'merchant.payd@example.com';

function notFound(name: string): never {
  throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
}

/** A resolver over a plain zone object, shaped like dns.promises.resolve (TXT -> string[][]). */
export function zoneResolver(zone: Record<string, string[][]>): DnsResolver {
  return async (name, rrtype) => {
    const rows = zone[name.toLowerCase()];
    if (rrtype === 'TXT' && rows) return rows;
    notFound(name);
  };
}

export interface SignOptions {
  domain: string;
  selector?: string;
  /** DKIM `l=`: sign only this many body bytes. */
  maxBodyLength?: number;
  /** Headers to sign; mailauth wants them colon-separated (its .d.ts says string[], the code splits a string). */
  headerList?: string;
}

export function dkimKit() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  const zone: Record<string, string[][]> = {};
  const publish = (domain: string, selector = 's1') => {
    // Looked up in lower case, as DNS names compare.
    zone[`${selector}._domainkey.${domain}`.toLowerCase()] = [[record]];
    zone[`_dmarc.${domain}`.toLowerCase()] ??= [['v=DMARC1; p=reject']];
  };
  const sign = async (raw: Buffer, o: SignOptions): Promise<Buffer> => {
    const selector = o.selector ?? 's1';
    publish(o.domain, selector);
    return signChecked(
      raw,
      {
        signingDomain: o.domain,
        selector,
        privateKey: pem,
        ...(o.headerList ? { headerList: o.headerList as unknown as string[] } : {}),
        signatureData: [{ signingDomain: o.domain, selector, privateKey: pem, ...(o.maxBodyLength !== undefined ? { maxBodyLength: o.maxBodyLength } : {}) }],
      },
      zoneResolver(zone),
    );
  };
  return { zone, publish, sign, resolver: zoneResolver(zone) };
}

export function options(resolver: DnsResolver, over: Partial<InspectOptions> = {}): InspectOptions {
  return { accounts: SAMPLE_ACCOUNTS, alertRecipients: [SAMPLE_RECIPIENT], dkimRequired: true, resolver, ...over };
}

/** Replace text in a message's bytes (every occurrence), as an attacker editing a signed mail would. */
export function edit(raw: Buffer, from: string, to: string): Buffer {
  const s = raw.toString('utf8');
  if (!s.includes(from)) throw new Error(`fixture does not contain ${from}`);
  return Buffer.from(s.split(from).join(to), 'utf8');
}

/** JSON for assertion messages (verdicts carry bigint amounts). */
export function show(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}

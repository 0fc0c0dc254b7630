// Bank alerts signed by dkimpy (Debian's python3-dkim), an implementation independent of mailauth,
// pass payd's DKIM verification whatever their headers hold: ASCII, or raw UTF-8 (a non-breaking
// space, Devanagari) in the From display name, the Subject and the To, under relaxed/relaxed and
// simple/simple. mailauth 4.13.3 read the byte 0xA0 inside such characters as whitespace in relaxed
// header canonicalization (patches/mailauth+4.13.3.patch); an edited copy still fails. Keys are made
// here and served by a DNS server on loopback.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createDnsResolver } from '../../src/methods/upi/dns.ts';
import { inspectAlert } from '../../src/methods/upi/inspect.ts';
import { hdfcCredit } from '../helpers/bank-alerts.ts';
import { dkimpySigner, type Canonicalization } from '../helpers/dkimpy.ts';
import { dnsStub } from '../helpers/dns-stub.ts';
import { mailboxWithDns, upiDaemonSection } from '../helpers/dovecot.ts';
import { runPayd, spawnPayd, workdir } from '../helpers/cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { options, show } from '../helpers/upi-kit.ts';

const DIST = fileURLToPath(new URL('../../dist', import.meta.url));
const DOMAIN = 'hdfcbank.bank.in';
// The headers real HDFC alerts sign, To included (recipient binding needs it).
const SIGNED = ['From', 'To', 'Subject', 'Date', 'Message-ID', 'MIME-Version', 'Content-Type'];
const NBSP = '\u00a0'; // UTF-8 C2 A0
// ठ (U+0920) is E0 A4 A0 in UTF-8: its last byte is the one mailauth 4.13.3 took for whitespace.

/** An HDFC credit with some of its header lines replaced by raw (unencoded) UTF-8 ones. */
function alert(utr: string, rupees: string, headers: Record<string, string> = {}): Buffer {
  let text = hdfcCredit({ rupees, utr, account: '4321' }).toString('utf8');
  for (const [name, line] of Object.entries(headers)) {
    const re = new RegExp(`^${name}: [^\\r\\n]*$`, 'm');
    assert.match(text, re);
    text = text.replace(re, () => `${name}: ${line}`);
  }
  return Buffer.from(text, 'utf8');
}

const MAILS: { name: string; utf8: boolean; headers: Record<string, string> }[] = [
  { name: 'ASCII headers', utf8: false, headers: {} },
  { name: 'NBSP in the From display name', utf8: true, headers: { From: `HDFC Bank${NBSP}InstaAlerts <alerts@${DOMAIN}>` } },
  {
    name: 'Devanagari in the From display name and the Subject',
    utf8: true,
    headers: { From: `एचडीएफसी बैंक ठाणे <alerts@${DOMAIN}>`, Subject: 'View: आपके खाते में राशि जमा हुई — ठाणे शाखा' },
  },
  {
    name: 'NBSP and Devanagari in a folded Subject, at its end, and in the To display name',
    utf8: true,
    headers: {
      From: `"HDFC Bank ठाणे${NBSP}InstaAlerts" <alerts@${DOMAIN}>`,
      Subject: `View:${NBSP}Account update for your HDFC Bank A/c —\r\n\tखाते में राशि जमा, ठाणे${NBSP}`,
      To: `"व्यापारी ठाकुर${NBSP}" <merchant.payd@example.com>`,
    },
  },
];
const CANONICALIZATIONS: Canonicalization[] = ['relaxed/relaxed', 'simple/simple'];

describe('DKIM signatures made by dkimpy', () => {
  const signer = dkimpySigner();
  const dns = dnsStub(signer.zone);
  let server = '';
  before(async () => {
    server = await dns.start();
  });
  after(() => dns.stop());

  const sign = (raw: Buffer, canonicalization: Canonicalization) =>
    signer.sign(raw, { domain: DOMAIN, selector: 'dkimpy', canonicalization, headers: SIGNED });

  test('every alert, ASCII or raw UTF-8 headers, relaxed or simple, verifies and is read as its credit', async () => {
    const resolver = createDnsResolver([server], 5000);
    const failed: string[] = [];
    let n = 0;
    for (const m of MAILS) {
      for (const c of CANONICALIZATIONS) {
        n++;
        const utr = `63261200${String(n).padStart(4, '0')}`;
        const raw = await sign(alert(utr, `${100 + n}.37`, m.headers), c);
        // The mail carries its UTF-8 headers as raw 8-bit bytes (no RFC 2047 encoded words).
        assert.equal(/[^\x00-\x7f]/.test(raw.subarray(0, raw.indexOf('\r\n\r\n')).toString('latin1')), m.utf8, m.name);
        const v = await inspectAlert(raw, options(resolver));
        if (v.kind !== 'credit') {
          failed.push(`${m.name}, ${c}: ${show(v)}`);
          continue;
        }
        assert.equal(v.amountMinor, BigInt((100 + n) * 100 + 37));
        assert.equal(v.utr, utr);
        assert.deepEqual(v.auth, { dkimDomain: DOMAIN, selector: 'dkimpy', dmarc: 'pass', verified: true });
      }
    }
    assert.deepEqual(failed, [], `${failed.length} of ${n} dkimpy-signed alerts were not accepted`);
  });

  test('an edited copy of a UTF-8 alert fails DKIM: body amount, Subject or From display name', async () => {
    const resolver = createDnsResolver([server], 5000);
    const m = MAILS[3];
    for (const c of CANONICALIZATIONS) {
      const signed = (await sign(alert('632612999901', '4.37', m.headers), c)).toString('utf8');
      const edits = {
        amount: signed.replace('Rs.4.37', 'Rs.4999.37'),
        subject: signed.replace(`ठाणे${NBSP}\r\n`, `ठाकुर${NBSP}\r\n`),
        // A non-breaking space is not whitespace: a plain space in its place is another header.
        from: signed.replace(`ठाणे${NBSP}InstaAlerts`, 'ठाणे InstaAlerts'),
      };
      for (const [what, text] of Object.entries(edits)) {
        assert.notEqual(text, signed, `${what} edit applied`);
        const v = await inspectAlert(Buffer.from(text, 'utf8'), options(resolver));
        assert.equal(v.kind, 'reject', `${c}, ${what}: ${show(v)}`);
        assert.equal((v as { reason: string }).reason, 'dkim_fail', `${c}, ${what}: ${show(v)}`);
      }
    }
  });
});

// The built daemon (dist/, what bin/payd runs) bundles mailauth at build time: the patch must be in it.
test('the built daemon settles an intent with a dkimpy-signed UTF-8 alert read from Dovecot', async (t) => {
  assert.ok(existsSync(join(DIST, 'main.js')), 'dist/ is built (test/run.mjs builds it first)');
  const signer = dkimpySigner();
  const { dovecot, dnsServer } = await mailboxWithDns(t, signer.zone);
  const dir = workdir(t, {
    server: { host: '127.0.0.1', port: 0, publicUrl: 'https://pay.example.com' },
    database: { file: 'data/payd.sqlite' },
    methods: {
      UPI: upiDaemonSection(dovecot, dnsServer),
    },
  });
  const made = await runPayd(['merchant', 'create', '--name', 'Shop', '--json'], dir);
  assert.equal(made.status, 0, made.stderr);
  const merchant = JSON.parse(made.stdout);
  const headers = { 'x-client-id': merchant.client_id, 'x-client-secret': merchant.client_secret, 'content-type': 'application/json' };
  const d = await spawnPayd(['serve'], { cwd: dir });
  t.after(() => d.child.kill('SIGKILL'));
  const res = await fetch(`${d.url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 499.37, currency: 'UPI', order_id: 'utf8-alert' }) });
  const intent = (await res.json()) as { intent_id: string; pay_amount: number | string };
  assert.equal(res.status, 200, JSON.stringify(intent));
  const statusOf = async () => ((await (await fetch(`${d.url}/api/v1/intents/${intent.intent_id}`, { headers })).json()) as { status: string; transaction_hash?: string });

  const utr = '632612777701';
  // As the bank prints it: two decimals (the API's number may drop a trailing zero).
  const [rupees, paise = ''] = String(intent.pay_amount).split('.');
  const raw = alert(utr, `${rupees}.${paise.padEnd(2, '0')}`, MAILS[3].headers);
  await dovecot.append(await signer.sign(raw, { domain: DOMAIN, selector: 'dkimpy', canonicalization: 'relaxed/relaxed', headers: SIGNED }));
  await waitFor(async () => (await statusOf()).status === 'settled', 30_000, 'the intent to settle').catch((err) => {
    throw new Error(`${err.message}; the daemon's log ends:\n${d.stderr().slice(-4000)}`);
  });
  assert.equal((await statusOf()).transaction_hash, utr);
  assert.doesNotMatch(d.stderr(), /no build in dist/);
  d.child.kill('SIGTERM');
  assert.equal(await d.exited, 0);
});

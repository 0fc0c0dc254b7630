// DKIM/DMARC authenticity of bank alerts (test/fixtures/upi-emails/README.md §2.1), with keys generated here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreditAlert } from '../../../../src/methods/upi/alert.ts';
import { inspectAlert } from '../../../../src/methods/upi/inspect.ts';
import { dkimKit, edit, fixture, fixtureJson, options, show, zoneResolver } from '../../../helpers/upi-kit.ts';

const kit = dkimKit();
const credit = () => fixture('hdfc-credit.eml');
const signedCredit = () => kit.sign(credit(), { domain: 'hdfcbank.bank.in' });

const APPENDED_CREDIT = "\r\nWe're writing to inform you that Rs.9,999.00 has been successfully credited to your HDFC Bank account ending in 4321.\na. Date: 22-11-26\nc. UPI Reference No.: 699999999999\n";

describe('DKIM: what is accepted', () => {
  it('a genuine bank-signed alert is a verified credit', async () => {
    const v = await inspectAlert(await signedCredit(), options(kit.resolver));
    assert.equal(v.kind, 'credit', show(v));
    assert.deepEqual((v as CreditAlert).auth, { dkimDomain: 'hdfcbank.bank.in', selector: 's1', dmarc: 'pass', verified: true });
  });

  it('a signature by a subdomain of the bank (relaxed alignment) is accepted', async () => {
    const v = await inspectAlert(await kit.sign(credit(), { domain: 'comm.hdfcbank.bank.in' }), options(kit.resolver));
    assert.equal(v.kind, 'credit', show(v));
    assert.equal((v as CreditAlert).auth.dkimDomain, 'comm.hdfcbank.bank.in');
  });

  it('the shipped signed sample verifies against the shipped test zone', async () => {
    const zone = fixtureJson('test-dns.json');
    delete zone._comment;
    const v = await inspectAlert(fixture('hdfc-credit.dkim-signed.eml'), options(zoneResolver(zone as Record<string, string[][]>)));
    assert.equal(v.kind, 'credit', show(v));
    const c = v as CreditAlert;
    assert.equal(c.amountMinor, 49937n);
    assert.equal(c.utr, '632612345678');
    assert.deepEqual(c.auth, { dkimDomain: 'hdfcbank.bank.in', selector: 'paydtest2026', dmarc: 'pass', verified: true });
  });
});

describe('DKIM: what is rejected', () => {
  it('amount edited after signing', async () => {
    const v = await inspectAlert(edit(await signedCredit(), 'Rs.499.37', 'Rs.4999.37'), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_fail']);
  });

  it('the shipped signed sample with its amount edited', async () => {
    const zone = fixtureJson('test-dns.json');
    const v = await inspectAlert(edit(fixture('hdfc-credit.dkim-signed.eml'), 'Rs.499.37', 'Rs.999.37'), options(zoneResolver(zone as Record<string, string[][]>)));
    assert.equal(v.kind, 'reject');
  });

  it('unsigned mail with the bank From', async () => {
    const v = await inspectAlert(credit(), options(kit.resolver));
    assert.deepEqual(v, { kind: 'reject', reason: 'dkim_missing', bank: 'hdfc', detail: (v as { detail?: unknown }).detail });
  });

  it('signed by attacker.example with the bank From', async () => {
    const v = await inspectAlert(await kit.sign(credit(), { domain: 'attacker.example' }), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_not_aligned']);
  });

  it('signed by another bank for an HDFC From', async () => {
    const v = await inspectAlert(await kit.sign(credit(), { domain: 'icici.bank.in' }), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_not_aligned']);
  });

  it('a genuine signature with a second From prepended', async () => {
    const signed = await signedCredit();
    const v = await inspectAlert(Buffer.concat([Buffer.from('From: Payments <alerts@hdfcbank.bank.in>\r\n'), signed]), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'multiple_from']);
    const v2 = await inspectAlert(Buffer.concat([Buffer.from('From: Payments <pay@attacker.example>\r\n'), signed]), options(kit.resolver));
    assert.deepEqual([v2.kind, (v2 as { reason: string }).reason], ['reject', 'multiple_from']);
  });

  it('one From header with two addresses', async () => {
    const raw = edit(credit(), 'From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>', 'From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>, x@attacker.example');
    const v = await inspectAlert(await kit.sign(raw, { domain: 'hdfcbank.bank.in' }), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'multiple_from']);
  });

  // A credit appended after the signed part of a genuine notice: the notice has no money sentence of its own.
  it('an l= signature over a genuine balance notice, with a fake credit appended', async () => {
    const notice = fixture('hdfc-balance.eml');
    const bodyLength = notice.length - notice.indexOf('\r\n\r\n') - 4; // the whole genuine body, nothing after it
    const signed = await kit.sign(notice, { domain: 'hdfcbank.bank.in', maxBodyLength: bodyLength });
    const v = await inspectAlert(Buffer.concat([signed, Buffer.from(APPENDED_CREDIT)]), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_body_length_limited']);
  });

  it('an l= signature over a genuine debit, with a fake credit appended: the bank\'s own first sentence is a debit', async () => {
    const debit = fixture('hdfc-debit.eml');
    const bodyLength = debit.length - debit.indexOf('\r\n\r\n') - 4;
    const signed = await kit.sign(debit, { domain: 'hdfcbank.bank.in', maxBodyLength: bodyLength });
    const v = await inspectAlert(Buffer.concat([signed, Buffer.from(APPENDED_CREDIT)]), options(kit.resolver));
    assert.deepEqual(v, { kind: 'ignore', reason: 'debit', bank: 'hdfc' });
  });

  it('a signature that does not cover Subject', async () => {
    const v = await inspectAlert(await kit.sign(credit(), { domain: 'hdfcbank.bank.in', headerList: 'From:Date:To:Message-ID' }), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_headers_unsigned']);
  });

  it('a bank domain that publishes no DMARC record', async () => {
    const k = dkimKit();
    const signed = await k.sign(credit(), { domain: 'hdfcbank.bank.in' });
    delete k.zone['_dmarc.hdfcbank.bank.in'];
    const v = await inspectAlert(signed, options(k.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dmarc_none']);
  });
});

describe('DKIM: DNS trouble', () => {
  it('a resolver failing with ESERVFAIL asks for a retry, never accepts', async () => {
    const servfail = async (name: string) => {
      throw Object.assign(new Error(`queryTxt ESERVFAIL ${name}`), { code: 'ESERVFAIL' });
    };
    const v = await inspectAlert(await signedCredit(), options(servfail));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['retry', 'dns_temperror']);
  });

  it('a timeout only on the DMARC look-up is a retry too', async () => {
    const flaky = async (name: string, rr: string) => {
      if (name.startsWith('_dmarc.')) throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
      return kit.resolver(name, rr);
    };
    const v = await inspectAlert(await signedCredit(), options(flaky));
    assert.equal(v.kind, 'retry');
  });

  it('a missing key (ENOTFOUND) is a rejection, not a retry', async () => {
    const v = await inspectAlert(await kit.sign(credit(), { domain: 'hdfcbank.bank.in', selector: 'gone' }), options(zoneResolver({})));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_fail']);
  });
});

describe('Gmail Message-ID repair (HDFC)', () => {
  const original = '<20261122074510.4321.632612345678@comm.hdfcbank.bank.in>';
  const gmailise = (signed: Buffer, replacement: string) =>
    Buffer.concat([Buffer.from(`X-Google-Original-Message-ID: ${original}\r\n`), edit(signed, `Message-ID: ${original}`, `Message-ID: ${replacement}`)]);

  it('verifies with X-Google-Original-Message-ID when Gmail marked the Message-ID broken', async () => {
    const v = await inspectAlert(gmailise(await signedCredit(), '<CAxyz123.SMTPIN_ADDED_BROKEN@mx.google.com>'), options(kit.resolver));
    assert.equal(v.kind, 'credit', show(v));
    assert.equal((v as CreditAlert).messageId, original);
  });

  it('does not substitute for any other Message-ID', async () => {
    const v = await inspectAlert(gmailise(await signedCredit(), '<rewritten@mx.example>'), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_fail']);
  });
});

describe('dkimRequired: false', () => {
  it('accepts an unsigned alert from the bank sender, marked unverified', async () => {
    const v = await inspectAlert(credit(), options(kit.resolver, { dkimRequired: false }));
    assert.equal(v.kind, 'credit', show(v));
    assert.deepEqual((v as CreditAlert).auth, { dkimDomain: '', dmarc: 'skipped', verified: false });
  });

  it('still rejects a second From and a look-alike sender', async () => {
    const dup = await inspectAlert(Buffer.concat([Buffer.from('From: x@attacker.example\r\n'), credit()]), options(kit.resolver, { dkimRequired: false }));
    assert.deepEqual([dup.kind, (dup as { reason: string }).reason], ['reject', 'multiple_from']);
    const spoof = await inspectAlert(fixture('spoof-lookalike-credit.eml'), options(kit.resolver, { dkimRequired: false }));
    assert.deepEqual([spoof.kind, (spoof as { reason: string }).reason], ['reject', 'lookalike_sender']);
  });
});

describe('recipient binding', () => {
  const hdfcSig = { domain: 'hdfcbank.bank.in', selector: 'acls01', headerList: 'content-type:message-id:subject:date:mime-version:to:from' };
  const reason = (v: { kind: string }) => [v.kind, (v as { reason?: string }).reason];

  it('real HDFC shape: the bank signature (h= with to) plus the provider signature (aclmobile.net) verifies', async () => {
    const once = await kit.sign(credit(), hdfcSig);
    const twice = await kit.sign(once, { domain: 'aclmobile.net', selector: 'esp' });
    const v = await inspectAlert(twice, options(kit.resolver));
    assert.equal(v.kind, 'credit', show(v));
    assert.equal((v as CreditAlert).auth.dkimDomain, 'hdfcbank.bank.in');
  });

  it('a genuine alert the bank sent to someone else is recipient_mismatch', async () => {
    const raw = edit(credit(), 'To: merchant.payd@example.com', 'To: attacker@gmail.com');
    assert.deepEqual(reason(await inspectAlert(await kit.sign(raw, hdfcSig), options(kit.resolver))), ['reject', 'recipient_mismatch']);
  });

  it('our address compares case-insensitively, with a display name', async () => {
    const raw = edit(credit(), 'To: merchant.payd@example.com', 'To: "Shop" <Merchant.Payd@EXAMPLE.COM>');
    assert.equal((await inspectAlert(await kit.sign(raw, hdfcSig), options(kit.resolver))).kind, 'credit');
  });

  it('a To the signature does not cover is recipient_unsigned', async () => {
    const signed = await kit.sign(credit(), { ...hdfcSig, headerList: 'content-type:message-id:subject:date:mime-version:from' });
    assert.deepEqual(reason(await inspectAlert(signed, options(kit.resolver))), ['reject', 'recipient_unsigned']);
  });

  it('our address in an added To header above the signed one does not count', async () => {
    const raw = edit(credit(), 'To: merchant.payd@example.com', 'To: attacker@gmail.com');
    const forged = Buffer.concat([Buffer.from('To: merchant.payd@example.com\r\n'), await kit.sign(raw, hdfcSig)]);
    assert.deepEqual(reason(await inspectAlert(forged, options(kit.resolver))), ['reject', 'recipient_mismatch']);
  });

  it('our address as a quoted display name around another address does not count', async () => {
    const raw = edit(credit(), 'To: merchant.payd@example.com', 'To: "merchant.payd@example.com" <attacker@gmail.com>');
    assert.deepEqual(reason(await inspectAlert(await kit.sign(raw, hdfcSig), options(kit.resolver))), ['reject', 'recipient_mismatch']);
  });

  it('the bank writes to one address, the mailbox is another: alertRecipients names the bank\'s', async () => {
    const raw = edit(credit(), 'To: merchant.payd@example.com', 'To: owner@gmail.com');
    const signed = await kit.sign(raw, hdfcSig);
    assert.deepEqual(reason(await inspectAlert(signed, options(kit.resolver))), ['reject', 'recipient_mismatch']);
    assert.equal((await inspectAlert(signed, options(kit.resolver, { alertRecipients: ['OWNER@gmail.com', 'merchant.payd@example.com'] }))).kind, 'credit');
  });
});

describe('only the bank\'s own DNS matters', () => {
  it('other signatures are never looked up; only the bank key and its DMARC record are', async () => {
    const asked: string[] = [];
    const spy = async (name: string, rr: string) => {
      asked.push(name.toLowerCase());
      return kit.resolver(name, rr);
    };
    const signed = await kit.sign(await kit.sign(credit(), { domain: 'hdfcbank.bank.in' }), { domain: 'never-answers.example', selector: 'x' });
    const v = await inspectAlert(signed, options(spy));
    assert.equal(v.kind, 'credit', show(v));
    assert.deepEqual(asked.sort(), ['_dmarc.hdfcbank.bank.in', 's1._domainkey.hdfcbank.bank.in']);
  });

  it('a time-out on another signature is irrelevant; on the bank key it is a retry', async () => {
    const timingOut = (bad: string) => async (name: string, rr: string) => {
      if (name.toLowerCase() === bad) throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
      return kit.resolver(name, rr);
    };
    const signed = await kit.sign(await kit.sign(credit(), { domain: 'hdfcbank.bank.in' }), { domain: 'aclmobile.net', selector: 'esp' });
    assert.equal((await inspectAlert(signed, options(timingOut('esp._domainkey.aclmobile.net')))).kind, 'credit');
    const v = await inspectAlert(signed, options(timingOut('s1._domainkey.hdfcbank.bank.in')));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['retry', 'dns_temperror']);
  });
});

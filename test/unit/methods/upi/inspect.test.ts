// inspectAlert's decisions around the parsers: sender, account, unparseable credits, alert time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreditAlert } from '../../../../src/methods/upi/alert.ts';
import { alertTime } from '../../../../src/methods/upi/alert-time.ts';
import { bankById } from '../../../../src/methods/upi/banks/index.ts';
import { accountMatches, inspectAlert } from '../../../../src/methods/upi/inspect.ts';
import { dkimKit, edit, fixture, options, show } from '../../../helpers/upi-kit.ts';

const kit = dkimKit();
const ist = (s: string) => Date.parse(s.replace(' ', 'T') + '+05:30');
const noDns = async () => {
  throw new Error('DNS must not be asked');
};

describe('sender', () => {
  it('a look-alike domain claiming an HDFC credit is rejected without any DNS look-up', async () => {
    const v = await inspectAlert(fixture('spoof-lookalike-credit.eml'), options(noDns));
    assert.deepEqual(v, { kind: 'reject', reason: 'lookalike_sender', bank: 'hdfc', detail: { from: ['alerts@hdfcbank-alerts.net'] } });
  });

  it('the same look-alike even when it signs its own domain', async () => {
    const v = await inspectAlert(await kit.sign(fixture('spoof-lookalike-credit.eml'), { domain: 'hdfcbank-alerts.net' }), options(kit.resolver));
    assert.equal(v.kind, 'reject');
  });

  it('ordinary mail from an unknown sender is ignored', async () => {
    const raw = Buffer.from('From: friend@example.org\r\nTo: merchant.payd@example.com\r\nSubject: lunch?\r\n\r\nSee you at 1.\r\n');
    assert.deepEqual(await inspectAlert(raw, options(noDns)), { kind: 'ignore', reason: 'unknown_sender' });
  });

  it('HDFC marketing sender is ignored even when its text mentions credits', async () => {
    const raw = edit(fixture('hdfc-credit.eml'), 'alerts@hdfcbank.bank.in', 'information@hdfcbank.bank.in');
    assert.deepEqual(await inspectAlert(raw, options(noDns)), { kind: 'ignore', reason: 'marketing', bank: 'hdfc' });
  });
});

describe('account', () => {
  it('a genuine credit to another account of the bank settles nothing and is kept as other_account', async () => {
    const signed = await kit.sign(fixture('hdfc-credit.eml'), { domain: 'hdfcbank.bank.in' });
    const v = await inspectAlert(signed, options(kit.resolver, { accounts: [{ bank: 'hdfc', accountEnding: '9999' }] }));
    assert.deepEqual(v, { kind: 'reject', reason: 'other_account', bank: 'hdfc', detail: { accountMask: '4321', amountMinor: '49937', utr: '632612345678' }, authenticated: true });
  });

  it('an account ending configured for another bank does not count', async () => {
    const signed = await kit.sign(fixture('hdfc-credit.eml'), { domain: 'hdfcbank.bank.in' });
    const v = await inspectAlert(signed, options(kit.resolver, { accounts: [{ bank: 'axis', accountEnding: '4321' }] }));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'other_account']);
  });

  it('masks compare on the digits both sides show', () => {
    const sbi = bankById('sbi');
    const icici = bankById('icici');
    assert.equal(accountMatches(sbi, 'XXXXX654321', [{ bank: 'sbi', accountEnding: '4321' }]), true);
    assert.equal(accountMatches(sbi, 'XXXXX654321', [{ bank: 'sbi', accountEnding: '654321' }]), true);
    assert.equal(accountMatches(sbi, 'XXXXX654321', [{ bank: 'sbi', accountEnding: '754321' }]), false);
    assert.equal(accountMatches(icici, 'XX321', [{ bank: 'icici', accountEnding: '654321' }]), true);
    assert.equal(accountMatches(icici, 'XX321', [{ bank: 'icici', accountEnding: '654320' }]), false);
  });

  it('a whole account number configured: the leading digits IndusInd prints must agree too', () => {
    const indusind = bankById('indusind');
    assert.equal(accountMatches(indusind, '15XXXXXX4321', [{ bank: 'indusind', accountEnding: '4321' }]), true);
    assert.equal(accountMatches(indusind, '15XXXXXX4321', [{ bank: 'indusind', accountEnding: '150123454321' }]), true);
    assert.equal(accountMatches(indusind, '15XXXXXX4321', [{ bank: 'indusind', accountEnding: '160123454321' }]), false);
    assert.equal(accountMatches(indusind, '15XXXXXX4321', [{ bank: 'indusind', accountEnding: '15012345654321' }]), false);
    // Banks that print only the last digits compare those, whatever the configured length.
    assert.equal(accountMatches(bankById('hdfc'), '**4321', [{ bank: 'hdfc', accountEnding: '50100012344321' }]), true);
    assert.equal(accountMatches(bankById('hdfc'), '**4321', [{ bank: 'hdfc', accountEnding: '50100012344322' }]), false);
  });
});

describe('unparseable credits', () => {
  it('a signed bank mail that reads like a credit in an unknown wording is rejected as unparseable', async () => {
    const raw = edit(fixture('hdfc-credit.eml'), 'has been successfully credited to your HDFC Bank account ending in 4321', 'was credited to a/c XX4321');
    const v = await inspectAlert(await kit.sign(raw, { domain: 'hdfcbank.bank.in' }), options(kit.resolver));
    assert.equal(v.kind, 'reject', show(v));
    assert.equal((v as { reason: string }).reason, 'unparseable');
  });

  it('the same unknown wording unsigned fails authenticity first', async () => {
    const raw = edit(fixture('hdfc-credit.eml'), 'has been successfully credited to your HDFC Bank account ending in 4321', 'was credited to a/c XX4321');
    const v = await inspectAlert(raw, options(kit.resolver));
    assert.equal((v as { reason: string }).reason, 'dkim_missing');
  });
});

describe('alert time (IST)', () => {
  it('body date with the Date header time', () => {
    assert.equal(alertTime({ date: { year: 2026, month: 11, day: 22 } }, new Date(ist('2026-11-22 07:45:10'))), ist('2026-11-22 07:45:10'));
  });

  it('a body time wins over the headers', () => {
    const t = alertTime({ date: { year: 2026, month: 11, day: 22 }, time: { hour: 19, minute: 22, second: 28 } }, new Date(ist('2026-11-22 19:30:00')));
    assert.equal(t, ist('2026-11-22 19:22:28'));
  });

  it('stays inside the body date when the mail went out after midnight', () => {
    assert.equal(alertTime({ date: { year: 2026, month: 11, day: 22 } }, new Date(ist('2026-11-23 00:04:12'))), ist('2026-11-22 23:59:59'));
  });

  it('falls back to the IMAP arrival time, then to the date alone', () => {
    assert.equal(alertTime({ date: { year: 2026, month: 11, day: 22 } }, undefined, ist('2026-11-22 08:00:00')), ist('2026-11-22 08:00:00'));
    assert.equal(alertTime({ date: { year: 2026, month: 11, day: 22 } }), ist('2026-11-22 00:00:00'));
    assert.equal(alertTime({}, undefined, 1234), 1234);
  });

  it('IndusInd (no body date) takes receivedAt when the Date header is missing', async () => {
    const raw = await kit.sign(edit(fixture('indusind-credit.eml'), 'Date: Sun, 22 Nov 2026 07:46:00 +0530\r\n', ''), { domain: 'indusind.com', headerList: 'From:Subject:To:Message-ID' });
    const v = await inspectAlert(raw, options(kit.resolver, { receivedAt: ist('2026-11-22 07:47:00') }));
    // Date is not there to be signed, so the signature cannot cover it: rejected, never guessed.
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'dkim_headers_unsigned']);
    const unsignedOk = await inspectAlert(edit(fixture('indusind-credit.eml'), 'Date: Sun, 22 Nov 2026 07:46:00 +0530\r\n', ''), options(kit.resolver, { dkimRequired: false, receivedAt: ist('2026-11-22 07:47:00') }));
    assert.equal((unsignedOk as CreditAlert).occurredAt, ist('2026-11-22 07:47:00'));
  });
});

describe('template churn', () => {
  const notice = (text: string) =>
    Buffer.from(
      [
        'From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>',
        'To: merchant.payd@example.com',
        'Subject: View: Account update for your HDFC Bank A/c',
        'Date: Sun, 22 Nov 2026 07:45:10 +0530',
        'Message-ID: <churn.1@comm.hdfcbank.bank.in>',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=UTF-8',
        '',
        text,
        '',
      ].join('\r\n'),
    );

  it('a verified bank mail no template reads is "unread" (counted by doctor), not ignored', async () => {
    const v = await inspectAlert(await kit.sign(notice('Dear Customer, your InstaAlert preferences were updated on 22-11-26.'), { domain: 'hdfcbank.bank.in' }), options(kit.resolver));
    assert.deepEqual(v, { kind: 'unread', bank: 'hdfc', detail: { subject: 'View: Account update for your HDFC Bank A/c' } });
  });

  it('the same mail unsigned is only noise (ignored): nobody can inflate the count', async () => {
    const v = await inspectAlert(notice('Dear Customer, your InstaAlert preferences were updated on 22-11-26.'), options(kit.resolver));
    assert.deepEqual(v, { kind: 'ignore', reason: 'unrecognized', bank: 'hdfc' });
  });

  it('a credit in a new wording with an OTP footer is kept as unparseable, not ignored as an OTP mail', async () => {
    const text = 'Dear Customer, INR 499.37 has been added and credited into your HDFC Bank savings a/c xx4321 today. Never share your OTP with anyone. Download your statement from NetBanking.';
    const v = await inspectAlert(await kit.sign(notice(text), { domain: 'hdfcbank.bank.in' }), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'unparseable']);
  });
});

// Text the counterparty chose (payer/payee name, the name segment of a UPI path, a
// remitter row) never supplies the amount, the reference, the account or the direction. Every bank
// template the parsers know, credit and debit, gets the bank sentences, reference sentences and
// direction sentences injected into each free-text field: a credit reads the bank's own ₹1.00, its
// own reference and account, or is rejected `suspicious_counterparty`; a debit never reads as a credit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ParseResult } from '../../../../src/methods/upi/banks/bank.ts';
import { bankById } from '../../../../src/methods/upi/banks/index.ts';
import { inspectAlert } from '../../../../src/methods/upi/inspect.ts';
import { alertMail } from '../../../helpers/bank-alerts.ts';
import { CREDITS, DEBITS, INJECTIONS, NAME, type Template } from './bank-templates.ts';
import { dkimKit, options, show } from '../../../helpers/upi-kit.ts';

const parse = (t: Template, f: string): ParseResult => bankById(t.bank).parse(t.body(f), t.subject ?? '');
/** The field alone and inside an ordinary name. */
const fields = (inj: string) => [inj, `${NAME} ${inj}`];

describe('credit templates read their own sentence and rows', () => {
  for (const t of CREDITS) {
    it(`${t.name}: an ordinary payer name reads as the bank's ₹1.00 credit`, () => {
      const r = parse(t, NAME);
      assert.equal(r.kind, 'credit', show(r));
      const c = r as Extract<ParseResult, { kind: 'credit' }>;
      assert.deepEqual({ amountMinor: c.amountMinor, utr: c.utr, accountMask: c.accountMask }, t.own);
    });
  }
});

describe('credit templates: counterparty text never supplies amount, reference, account or direction', () => {
  for (const t of CREDITS) {
    it(`${t.name}: every injected sentence is the bank's ₹1.00 or suspicious_counterparty`, () => {
      const wrong: string[] = [];
      for (const inj of INJECTIONS) {
        for (const f of fields(inj)) {
          const r = parse(t, f);
          if (r.kind === 'suspicious') continue;
          if (r.kind === 'credit' && r.amountMinor === t.own.amountMinor && r.utr === t.own.utr && r.accountMask === t.own.accountMask) {
            // Read the bank's own values; a name that carries an amount, a money verb or a label is still never settled.
            wrong.push(`${f} -> credit (not suspicious)`);
            continue;
          }
          wrong.push(`${f} -> ${show(r)}`);
        }
      }
      assert.deepEqual(wrong, []);
    });
  }
});

describe('debit templates: counterparty text never turns a debit into a credit', () => {
  for (const t of DEBITS) {
    it(`${t.name}: never a credit`, () => {
      const wrong: string[] = [];
      for (const inj of INJECTIONS) {
        for (const f of fields(inj)) {
          const r = parse(t, f);
          if (r.kind === 'credit') wrong.push(`${f} -> ${show(r)}`);
        }
      }
      assert.deepEqual(wrong, []);
      assert.equal(parse(t, NAME).kind, 'not_credit');
    });
  }
  it('where the bank names the payee after its own sentence, the bank sentence decides: debit', () => {
    for (const t of DEBITS.filter((d) => !d.name.includes('name first'))) {
      for (const inj of INJECTIONS) {
        const r = parse(t, inj);
        assert.equal(r.kind === 'not_credit' ? r.reason : r.kind, 'debit', `${t.name} / ${inj}: ${show(r)}`);
      }
    }
  });
});

describe('inspectAlert keeps a suspicious credit as the rejection suspicious_counterparty', () => {
  const kit = dkimKit();
  it('a genuine HDFC legacy ₹1.00 credit whose payer name claims ₹5000.00', async () => {
    const c = CREDITS.find((x) => x.name === 'HDFC legacy')!;
    const mail = alertMail({ id: 'x', from: 'HDFC Bank InstaAlerts <alerts@hdfcbank.net>', subject: 'View: Account update for your HDFC Bank A/c', text: c.body('Rs.5000.00 has been credited to your HDFC Bank account ending 4321') });
    const v = await inspectAlert(await kit.sign(mail, { domain: 'hdfcbank.net' }), options(kit.resolver));
    assert.equal(v.kind, 'reject', show(v));
    assert.equal((v as { reason: string }).reason, 'suspicious_counterparty');
    assert.equal((v as { bank: string }).bank, 'hdfc');
  });

  it('a genuine HDFC debit whose payee name is a credit sentence is ignored as a debit', async () => {
    const d = DEBITS[0];
    const mail = alertMail({ id: 'x', from: 'HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>', subject: '❗ You have done a UPI txn. Check details!', text: d.body('Rs.5000.00 has been credited to your HDFC Bank account ending 4321') });
    const v = await inspectAlert(await kit.sign(mail, { domain: 'hdfcbank.bank.in' }), options(kit.resolver));
    assert.deepEqual(v, { kind: 'ignore', reason: 'debit', bank: 'hdfc' });
  });
});

describe('both bodies of one alert', () => {
  const kit = dkimKit();
  it('a suspicious reading of the HTML part outranks a clean reading of the text part', async () => {
    const c = CREDITS.find((x) => x.name === 'HDFC 2026 (lines)')!;
    const html = c.body('ASHA VERMA UPI Reference No.: 111111111111').replace(/\n/g, '<br>');
    const raw = Buffer.from(
      [
        'From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>',
        'To: merchant.payd@example.com',
        'Subject: View: Account update for your HDFC Bank A/c',
        `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
        'Message-ID: <two-bodies@bank.test>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/alternative; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain; charset=UTF-8',
        '',
        c.body(NAME),
        '--b',
        'Content-Type: text/html; charset=UTF-8',
        '',
        `<html><body>${html}</body></html>`,
        '--b--',
        '',
      ].join('\r\n'),
    );
    const v = await inspectAlert(await kit.sign(raw, { domain: 'hdfcbank.bank.in' }), options(kit.resolver));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'suspicious_counterparty'], show(v));
  });
});

// Bank templates read as sentences: direction, amount slot, UTR label, VPA edge.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bankById, bankForAddress } from '../../../../src/methods/upi/banks/index.ts';
import { parseDate, toPaise } from '../../../../src/methods/upi/banks/text.ts';

const parse = (bank: Parameters<typeof bankById>[0], text: string, subject = '') => bankById(bank).parse(text, subject);

describe('direction comes from the sentence', () => {
  const cases: [Parameters<typeof bankById>[0], string, string][] = [
    ['hdfc', 'Rs.517.00 is debited from your account ending 4958 towards VPA shop@ibl (PAYEE) on 08-06-26. UPI transaction reference no.: 126479299557.', 'debit'],
    ['hdfc', 'Rs.50.00 has been debited from account 0682 to VPA xxx@ybl NAME on 30-11-25. Your UPI transaction reference number is 533473850929.', 'debit'],
    ['hdfc', 'Rs.499.00 has been debited from your HDFC Bank RuPay Credit Card ending 1234 and credited to VPA shop@okaxis (SHOP) on 22-11-26.', 'debit'],
    ['hdfc', 'Rs. 167.00 is successfully credited to your account **4321 by VPA gpayrefund-online@axisbank Google India on 21-11-26. Your UPI transaction reference number is 632598765432.', 'refund'],
    ['hdfc', 'The available balance in your account ending XX0682 is Rs. INR 9,569.45 as of 30-NOV-25', 'balance'],
    ['hdfc', 'Upcoming E-mandate (Auto payment) of INR 499.00 on 25-11-26 for NETFLIX.', 'mandate'],
    ['hdfc', '123456 is the OTP for your transaction of Rs. 499.00 at SHOP.', 'otp'],
    ['kotak', 'Rs. 1.00 is credited to your Kotak Bank Account XXXXXX0574 for reversal of UPI transaction 658997437546.', 'reversal'],
    ['kotak', 'We wish to inform you that your account xx0574 is credited by Rs. 122.00 on 11-Aug-2026 for IMPS transaction. IMPS Reference No: 622382144100', 'not_upi'],
    ['icici', 'Your ICICI Bank Account XX123 has been credited with INR 413 on 30-Jun-26. Info: XX123:Int.Pd:01-04-2026 to 30-06-2026.', 'not_upi'],
    ['sbi', 'Dear Customer, Your A/C XXXXX266404 has a debit by transfer of Rs 236.00 on 16/10/24. Avl Bal Rs 31,07,139.12.-SBI', 'debit'],
    ['sbi', 'Hold for INR 13,800.00 created in deposit Ac XXXXX266404 on 16/10/24.', 'unrecognized'],
    ['indusind', 'Your IndusInd Bank Account No. 15XXXXXX3333 has been Debited for INR 1.00 towards UPI/400111222333/DR/Moj/YESB0PTMUPI/-72704731@ptyb.', 'debit'],
    ['yes', 'INR 70.00 has been spent on your YES BANK Credit Card ending with 2222 at SHOP on 27-08-2026 at 06:46:36 pm.', 'debit'],
    ['federal', 'INR 9,000.00 credited to Federal Bank A/c XX1234 on 02-Apr-2025. NEFT.', 'unparseable'],
  ];
  for (const [bank, text, expected] of cases) {
    it(`${bank}: ${expected} — ${text.slice(0, 50)}…`, () => {
      const r = parse(bank, text);
      assert.equal(r.kind === 'not_credit' ? r.reason : r.kind, expected);
    });
  }

  it('Axis: a table that says credited under a "was debited" subject is not trusted', () => {
    const r = parse('axis', 'Amount Credited:\nINR 10.00\nAccount Number:\nXX4321\nTransaction Info:\nUPI/P2A/632612345678/X', 'INR 10.00 was debited from your A/c no. XX4321.');
    assert.deepEqual(r, { kind: 'unparseable', reason: 'direction_conflict' });
  });
});

describe('credit fields', () => {
  it('takes the amount from the template slot, not the balance before it', () => {
    const r = parse('yes', 'Avl Bal INR 99,999.00. Your A/c XXXXXXXX4321 has been credited with INR 1,02,345.67 on 22-11-2026 07:45:11 towards UPI/632612345678/asha.verma@okaxis/ASHA VERMA.');
    assert.equal(r.kind === 'credit' && r.amountMinor, 10234567n);
  });

  it('keeps the VPA without the sentence full stop', () => {
    const r = parse('icici', 'Your ICICI Bank Account XX321 has been credited with INR 5.00 on 22-Nov-26. Info: UPI/632612345678/A B/a.b-c_1@okaxis.');
    assert.equal(r.kind === 'credit' && r.payerVpa, 'a.b-c_1@okaxis');
  });

  it('wants a 12-digit UTR after its label: 11 digits is unparseable', () => {
    const r = parse('kotak', 'your account xx4321 is credited by Rs. 5.00 on 22-Nov-2026 for UPI transaction. UPI Reference No: 63261234567');
    assert.deepEqual(r, { kind: 'unparseable', reason: 'no_utr' });
  });

  it('a credit template without its reference sentence is unparseable, whatever follows the payer', () => {
    assert.deepEqual(parse('hdfc', `Rs. 5.00 is successfully credited to your account **4321 by VPA a@okaxis A on 22-11-26. ${'Thank you for banking with us. '.repeat(20)}`), { kind: 'unparseable', reason: 'no_utr' });
    assert.deepEqual(parse('icici', `Acct XX321 is credited with Rs 5.00 on 22-Nov-26 from A. ${'Thank you. '.repeat(40)}`), { kind: 'unparseable', reason: 'no_utr' });
  });

  it('a credit with three decimals is unparseable, not rounded', () => {
    const r = parse('hdfc', "We're writing to inform you that Rs.5.005 has been successfully credited to your HDFC Bank account ending in 4321. a. Date: 22-11-26 c. UPI Reference No.: 632612345678");
    assert.deepEqual(r, { kind: 'unparseable', reason: 'bad_amount' });
  });

  it('an unknown credit wording from the bank is unparseable (kept), not ignored', () => {
    const r = parse('hdfc', 'Money received! Rs. 500.00 credited to a/c XX4321 via UPI ref 632612345678.');
    assert.equal(r.kind, 'unparseable');
  });
});

describe('helpers', () => {
  it('amounts: Indian and western grouping to paise', () => {
    assert.equal(toPaise('1,02,345.67'), 10234567n);
    assert.equal(toPaise('102,345.6'), 10234560n);
    assert.equal(toPaise('413'), 41300n);
    assert.equal(toPaise('0.00'), undefined);
  });

  it('dates in every printed shape, invalid days refused', () => {
    assert.deepEqual(parseDate('22-11-26'), { year: 2026, month: 11, day: 22 });
    assert.deepEqual(parseDate('22/11/26'), { year: 2026, month: 11, day: 22 });
    assert.deepEqual(parseDate('22-Nov-2026'), { year: 2026, month: 11, day: 22 });
    assert.deepEqual(parseDate('30-NOV-25'), { year: 2025, month: 11, day: 30 });
    assert.deepEqual(parseDate('Nov 22, 2026'), { year: 2026, month: 11, day: 22 });
    assert.equal(parseDate('31-11-26'), undefined);
  });

  it('senders: current and legacy domains and subdomains; look-alikes are nobody', () => {
    assert.equal(bankForAddress('alerts@hdfcbank.bank.in')?.id, 'hdfc');
    assert.equal(bankForAddress('alerts@HDFCBANK.NET')?.id, 'hdfc');
    assert.equal(bankForAddress('cbsalerts.sbi@alerts.sbi.co.in')?.id, 'sbi');
    assert.equal(bankForAddress('alerts@hdfcbank-alerts.net'), undefined);
    assert.equal(bankForAddress('alerts@hdfcbank.net.evil.com'), undefined);
    assert.equal(bankForAddress('alerts@nothdfcbank.net'), undefined);
  });
});

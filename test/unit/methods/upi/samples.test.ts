// Every sample alert, signed as its bank with a test key, classified end to end by inspectAlert.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreditAlert } from '../../../../src/methods/upi/alert.ts';
import { inspectAlert } from '../../../../src/methods/upi/inspect.ts';
import { dkimKit, edit, fixture, options, show } from '../../../helpers/upi-kit.ts';

const kit = dkimKit();
const ist = (s: string) => Date.parse(s.replace(' ', 'T') + '+05:30');

interface Expected {
  file: string;
  domain: string;
  credit: Omit<CreditAlert, 'kind' | 'auth' | 'messageId' | 'utr'> & { utr?: string };
}

const CREDITS: Expected[] = [
  {
    file: 'hdfc-credit.eml',
    domain: 'hdfcbank.bank.in',
    credit: { bank: 'hdfc', amountMinor: 49937n, utr: '632612345678', utrDerived: false, accountMask: '4321', payerVpa: 'asha.verma@okaxis', payerName: 'ASHA VERMA', occurredAt: ist('2026-11-22 07:45:10') },
  },
  {
    file: 'hdfc-credit-legacy.eml',
    domain: 'hdfcbank.net',
    credit: { bank: 'hdfc', amountMinor: 49937n, utr: '532612345678', utrDerived: false, accountMask: '**4321', payerVpa: 'asha.verma@okaxis', payerName: 'ASHA VERMA', occurredAt: ist('2025-11-22 07:45:10') },
  },
  {
    file: 'axis-credit.eml',
    domain: 'axis.bank.in',
    credit: { bank: 'axis', amountMinor: 49937n, utr: '632612345678', utrDerived: false, accountMask: 'XX4321', payerName: 'ASHA VERMA', occurredAt: ist('2026-11-22 07:45:09') },
  },
  {
    file: 'icici-credit.eml',
    domain: 'icici.bank.in',
    credit: { bank: 'icici', amountMinor: 49937n, utr: '632612345678', utrDerived: false, accountMask: 'XX321', payerVpa: 'asha.verma@okaxis', payerName: 'ASHA VERMA', occurredAt: ist('2026-11-22 07:45:22') },
  },
  {
    file: 'kotak-credit.eml',
    domain: 'kotak.bank.in',
    credit: { bank: 'kotak', amountMinor: 49937n, utr: '632612345678', utrDerived: false, accountMask: 'xx4321', payerVpa: 'asha.verma@okaxis', payerName: 'ASHA VERMA', occurredAt: ist('2026-11-22 07:45:40') },
  },
  {
    file: 'sbi-credit.eml',
    domain: 'sbi.bank.in', // From is alerts.sbi.bank.in: relaxed alignment to the org domain
    credit: { bank: 'sbi', amountMinor: 49937n, utrDerived: true, accountMask: 'XXXXX654321', occurredAt: ist('2026-11-22 07:46:05') },
  },
  {
    file: 'yesbank-credit.eml',
    domain: 'yes.bank.in',
    credit: { bank: 'yes', amountMinor: 49937n, utr: '632612345678', utrDerived: false, accountMask: 'XXXXXXXX4321', payerVpa: 'asha.verma@okaxis', payerName: 'ASHA VERMA', occurredAt: ist('2026-11-22 07:45:11') },
  },
  {
    file: 'indusind-credit.eml',
    domain: 'indusind.com',
    credit: { bank: 'indusind', amountMinor: 49937n, utr: '632612345678', utrDerived: false, accountMask: '15XXXXXX4321', payerVpa: 'asha.verma@okaxis', payerName: 'ASHA VERMA', occurredAt: ist('2026-11-22 07:46:00') },
  },
  {
    file: 'federal-credit.eml',
    domain: 'federal.bank.in',
    credit: { bank: 'federal', amountMinor: 49937n, utr: '632612345678', utrDerived: false, accountMask: 'XX4321', payerVpa: 'asha.verma@okaxis', payerName: 'ASHA VERMA', occurredAt: ist('2026-11-22 07:45:12') },
  },
  // Our own variants: transfer encodings and HTML-only bodies.
  {
    file: 'hdfc-credit-qp.eml', // quoted-printable, soft break inside the UTR, Indian grouping; mailed 00:04 next day
    domain: 'hdfcbank.bank.in',
    credit: { bank: 'hdfc', amountMinor: 10234567n, utr: '632712345670', utrDerived: false, accountMask: '4321', payerVpa: 'remy.dsouza-1@okhdfcbank', payerName: "RéMY D'SOUZA", occurredAt: ist('2026-11-22 23:59:59') },
  },
  {
    file: 'icici-credit-base64.eml', // base64 body; the balance (1,02,345.67) must not be taken as the amount
    domain: 'icici.bank.in',
    credit: { bank: 'icici', amountMinor: 1250050n, utr: '632798765432', utrDerived: false, accountMask: 'XX321', payerVpa: 'meera.iyer@ybl', payerName: 'MEERA IYER', occurredAt: ist('2026-11-22 09:15:00') },
  },
  {
    file: 'axis-credit-html-only.eml', // label and value in one table row, entities
    domain: 'axis.bank.in',
    credit: { bank: 'axis', amountMinor: 125000n, utr: '632810000001', utrDerived: false, accountMask: 'XX4321', payerName: 'KARAN & SONS', occurredAt: ist('2026-11-22 10:02:11') },
  },
];

describe('sample credit alerts, signed by their bank', () => {
  for (const { file, domain, credit } of CREDITS) {
    it(`${file}: credit with exact fields`, async () => {
      const v = await inspectAlert(await kit.sign(fixture(file), { domain }), options(kit.resolver));
      assert.equal(v.kind, 'credit', show(v));
      const { kind, auth, messageId, utr, ...fields } = v as CreditAlert;
      if (credit.utrDerived) assert.match(utr, /^SBI-[0-9a-f]{24}$/);
      else assert.equal(utr, credit.utr);
      assert.deepEqual({ ...fields, ...(credit.utrDerived ? {} : { utr }) }, credit);
      assert.deepEqual(auth, { dkimDomain: domain, selector: 's1', dmarc: 'pass', verified: true });
      assert.ok(messageId?.startsWith('<'));
    });
  }
});

describe('sample alerts that are not credits', () => {
  const cases: [string, string, string][] = [
    ['hdfc-debit.eml', 'hdfcbank.bank.in', 'debit'],
    ['hdfc-rupay-debit.eml', 'hdfcbank.bank.in', 'debit'], // "debited … and credited to VPA"
    ['hdfc-balance.eml', 'hdfcbank.bank.in', 'balance'],
    ['sbi-debit.eml', 'sbi.bank.in', 'debit'],
    ['axis-debit.eml', 'axis.bank.in', 'debit'],
  ];
  for (const [file, domain, reason] of cases) {
    it(`${file}: ignored as ${reason}, even when genuinely signed`, async () => {
      const v = await inspectAlert(await kit.sign(fixture(file), { domain }), options(kit.resolver));
      assert.deepEqual(v, { kind: 'ignore', reason, bank: domain.startsWith('hdfc') ? 'hdfc' : domain.split('.')[0] });
    });
  }
});

describe('sample alerts that are money in but not a customer payment', () => {
  const cases: [string, string, string][] = [
    ['hdfc-refund-credit.eml', 'hdfcbank.bank.in', 'refund'], // gpayrefund-online@axisbank
    ['kotak-reversal.eml', 'kotak.bank.in', 'reversal'],
  ];
  for (const [file, domain, reason] of cases) {
    it(`${file}: settles nothing, kept as a rejection "${reason}" when genuinely signed`, async () => {
      const v = await inspectAlert(await kit.sign(fixture(file), { domain }), options(kit.resolver));
      assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', reason]);
    });
  }
});

describe('SBI derived id', () => {
  it('is stable for the same message and differs for another signed copy of the same alert', async () => {
    const signed = await kit.sign(fixture('sbi-credit.eml'), { domain: 'sbi.bank.in' });
    const a = await inspectAlert(signed, options(kit.resolver));
    const b = await inspectAlert(signed, options(kit.resolver));
    // A second payment of the same amount on the same day: same body, another Message-ID, another signature.
    const other = await kit.sign(edit(fixture('sbi-credit.eml'), '1204556677.88990', '1204556677.88999'), { domain: 'sbi.bank.in' });
    const c = await inspectAlert(other, options(kit.resolver));
    assert.equal(a.kind, 'credit');
    assert.equal((b as CreditAlert).utr, (a as CreditAlert).utr);
    assert.equal(c.kind, 'credit');
    assert.notEqual((c as CreditAlert).utr, (a as CreditAlert).utr);
  });
});

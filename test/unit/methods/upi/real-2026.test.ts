// The real 2026 bank templates (test/fixtures/upi-emails/REAL-2026.md, cases in test/fixtures/upi-emails/real-2026.json):
// every UPI credit to us reads with its amount and reference; debits, refunds, card payments and
// "beneficiary has received" texts never read as credits. Mails are generated and signed here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ConfiguredAccount, CreditAlert } from '../../../../src/methods/upi/alert.ts';
import { inspectAlert } from '../../../../src/methods/upi/inspect.ts';
import { alertMail, fromDomain, type AlertCase } from '../../../helpers/bank-alerts.ts';
import { dkimKit, options, show } from '../../../helpers/upi-kit.ts';

interface CreditCase extends AlertCase {
  expect: { bank: string; amountMinor: string; utr: string; accountMask: string; payerVpa?: string; payerName?: string };
}
interface NotCreditCase extends AlertCase {
  verdict: 'ignore' | 'reject';
  reason: string;
}
const cases = JSON.parse(readFileSync(new URL('../../../fixtures/upi-emails/real-2026.json', import.meta.url), 'utf8')) as {
  credits: CreditCase[];
  notCredits: NotCreditCase[];
  accounts: ConfiguredAccount[];
};

const kit = dkimKit();
const signed = (c: AlertCase) => kit.sign(alertMail(c), { domain: fromDomain(c.from) });

describe('real 2026 templates: UPI credits to us', () => {
  for (const c of cases.credits) {
    it(`${c.id}: ${c.expect.bank} ${c.expect.amountMinor} paise, reference ${c.expect.utr}`, async () => {
      const v = await inspectAlert(await signed(c), options(kit.resolver, { accounts: cases.accounts }));
      assert.equal(v.kind, 'credit', show(v));
      const a = v as CreditAlert;
      const got = { bank: a.bank, amountMinor: a.amountMinor.toString(), utr: a.utr, accountMask: a.accountMask, ...(a.payerVpa ? { payerVpa: a.payerVpa } : {}), ...(a.payerName ? { payerName: a.payerName } : {}) };
      assert.deepEqual(got, c.expect);
      assert.equal(a.auth.verified, true);
    });
  }

  it('the same alert to an account we do not have settles nothing and is kept', async () => {
    const v = await inspectAlert(await signed(cases.credits[0]), options(kit.resolver, { accounts: [{ bank: 'hdfc', accountEnding: '9999' }] }));
    assert.deepEqual([v.kind, (v as { reason: string }).reason], ['reject', 'other_account']);
  });
});

describe('real 2026 look-alikes: never a credit', () => {
  for (const c of cases.notCredits) {
    it(`${c.id}: ${c.verdict} (${c.reason})`, async () => {
      const v = await inspectAlert(await signed(c), options(kit.resolver, { accounts: cases.accounts }));
      assert.deepEqual([v.kind, (v as { reason?: string }).reason], [c.verdict, c.reason], show(v));
    });
  }
});

// Every real 2026 template that is a UPI credit to us settles its intent with its reference, through
// a real Dovecot, the real app and a DNS server the test runs; debits, refunds, card payments and
// "beneficiary has received" texts with an open intent's exact amount settle nothing. Bodies come from
// test/fixtures/upi-emails/real-2026.json (quoted from test/fixtures/upi-emails/REAL-2026.md); only the amount is changed, so
// that each alert has an intent of its own. Keys are made here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { ConfiguredAccount } from '../../src/methods/upi/alert.ts';
import { alertMail, dkimSigner, fromDomain, type AlertCase } from '../helpers/bank-alerts.ts';
import { dnsStub } from '../helpers/dns-stub.ts';
import { startDovecot, type Dovecot } from '../helpers/dovecot.ts';
import type { PaydHarness } from '../helpers/payd.ts';
import { startUpiPayd } from '../helpers/upi-payd.ts';
import { waitFor } from '../helpers/wait.ts';

interface CreditCase extends AlertCase {
  amount: string;
  /** The alert's own date and time as printed: moved to now, so the alert is newer than its intent. */
  date?: string;
  time?: string;
  expect: { utr: string };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Now in IST, printed like `sample` (dd-mm-yy, dd-mm-yyyy, dd-Mon-yy; HH:MM:SS). */
function istNow(sample: string): string {
  const ist = new Date(Date.now() + 330 * 60_000 + 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (/^\d\d:\d\d:\d\d$/.test(sample)) return `${pad(ist.getUTCHours())}:${pad(ist.getUTCMinutes())}:${pad(ist.getUTCSeconds())}`;
  const month = /[A-Za-z]/.test(sample) ? MONTHS[ist.getUTCMonth()] : pad(ist.getUTCMonth() + 1);
  const year = sample.length === 10 ? String(ist.getUTCFullYear()) : pad(ist.getUTCFullYear() % 100);
  return `${pad(ist.getUTCDate())}-${month}-${year}`;
}
const cases = JSON.parse(readFileSync(new URL('../fixtures/upi-emails/real-2026.json', import.meta.url), 'utf8')) as {
  credits: CreditCase[];
  notCredits: (AlertCase & { verdict: string; reason: string })[];
  accounts: ConfiguredAccount[];
};

/** The case with every occurrence of one amount text replaced (subject and body). */
const withAmount = (c: AlertCase, from: string, to: string): AlertCase => {
  const swap = (s?: string) => s?.split(from).join(to);
  return { ...c, subject: swap(c.subject)!, ...(c.text ? { text: swap(c.text) } : {}), ...(c.html ? { html: swap(c.html) } : {}) };
};

describe('real 2026 templates through Dovecot and the app', () => {
  const signer = dkimSigner();
  const dns = dnsStub(signer.zone);
  let dovecot: Dovecot;
  let h: PaydHarness | undefined;

  before(async () => {
    dovecot = await startDovecot();
  });
  after(async () => {
    await h?.close();
    await dovecot?.dispose();
    await dns.stop();
  });

  test('each credit settles its own intent with the alert\'s reference; look-alikes settle nothing', async () => {
    const p = await startUpiPayd(dovecot, 'Real', { dnsServer: await dns.start(), retryHours: 24, accounts: cases.accounts });
    h = p.h;
    const sign = (c: AlertCase) => signer.sign(alertMail(c), [{ domain: fromDomain(c.from), selector: 's1' }]);

    const settled: { id: string; utr: string; case: string }[] = [];
    for (const [i, c] of cases.credits.entries()) {
      const rupees = 1000 + i * 7; // distinct per case
      const intent = await p.intent(rupees + 0.37);
      assert.equal(intent.pay_amount.text, `${rupees}.37`);
      const printed = c.amount.includes(',') ? `${rupees.toLocaleString('en-IN')}.37` : `${rupees}.37`;
      let alert = withAmount(c, c.amount, printed);
      if (c.date) alert = withAmount(alert, c.date, istNow(c.date));
      if (c.time) alert = withAmount(alert, c.time, istNow(c.time));
      await dovecot.append(await sign(alert), { mailbox: 'Real' });
      settled.push({ id: intent.intent_id, utr: c.expect.utr, case: c.id });
    }

    // Look-alikes carrying an open intent's exact amount.
    const traps: [string, string, number][] = [
      ['N-01 hdfc upi debit', '1500.00', 1500],
      ['R-01 hdfc google refund', '167.00', 167],
      ['N-20 hdfc credit card payment', '1234.56', 1234.56],
      ['N-16 beneficiary has received', '12,345.00', 12345],
      ['N-03 hdfc rupay debited and credited to VPA', '6.00', 6],
    ];
    const pending: string[] = [];
    for (const [id, printed, amount] of traps) {
      const c = cases.notCredits.find((n) => n.id === id)!;
      assert.ok(c.text?.includes(printed), `${id} prints ${printed}`);
      pending.push((await p.intent(amount)).intent_id);
      await dovecot.append(await sign(c), { mailbox: 'Real' });
    }

    for (const s of settled) {
      await waitFor(async () => (await p.status(s.id)) === 'settled', 10_000, `${s.case} to settle`);
      assert.equal((await p.h.app.intents.get(s.id)).transaction_hash, s.utr, s.case);
    }
    // The refund is kept for the operator; read after every credit, since mail is read in order.
    await waitFor(async () => (await p.rejections()).some((r) => r.reason === 'refund'), 5000, 'the refund to be listed as rejected');
    for (const id of pending) assert.equal(await p.status(id), 'pending');
    const payments = await p.h.app.payments.list({ limit: 100 });
    assert.deepEqual(payments.map((x) => x.tx_ref).sort(), settled.map((s) => s.utr).sort(), 'only the credits became payments');
  });
});

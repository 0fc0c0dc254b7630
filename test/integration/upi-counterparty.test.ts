// End to end: a genuine, DKIM-signed ₹1.01 HDFC credit whose payer registered the name
// "Rs.5000.01 has been credited to your HDFC Bank account ending 4321" does not settle the open ₹5000.01
// intent (nor the ₹1.01 one; pay_amounts are never whole rupees): it is kept as the rejection suspicious_counterparty with its raw message. A
// genuine HDFC debit whose payee carries that name settles nothing either. Through a real Dovecot, the real
// app and a DNS server the test runs; keys are made here, never a bank's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { alertMail, dkimSigner, hdfcCredit } from '../helpers/bank-alerts.ts';
import { dnsStub } from '../helpers/dns-stub.ts';
import { startDovecot, type Dovecot } from '../helpers/dovecot.ts';
import type { PaydHarness } from '../helpers/payd.ts';
import { startUpiPayd } from '../helpers/upi-payd.ts';
import { waitFor } from '../helpers/wait.ts';

const NAME = 'Rs.5000.01 has been credited to your HDFC Bank account ending 4321';

/** Today's date as HDFC prints it (IST, dd-mm-yy). */
function istToday(): string {
  const ist = new Date(Date.now() + 330 * 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(ist.getUTCDate())}-${pad(ist.getUTCMonth() + 1)}-${pad(ist.getUTCFullYear() % 100)}`;
}

describe('a counterparty name that reads like the bank (Dovecot + DNS)', () => {
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

  test('the ₹1.01 alert with the injected name settles no intent; the genuine ₹5000.01 alert after it does', async () => {
    const p = await startUpiPayd(dovecot, 'Names', { dnsServer: await dns.start(), retryHours: 24 });
    h = p.h;
    const big = await p.intent(5000);
    const small = await p.intent(1);
    assert.equal(Number(big.pay_amount.text), 5000.01, 'customers pay exactly ₹5000.01 (never a whole rupee)');
    assert.equal(Number(small.pay_amount.text), 1.01);

    // The legacy template (hdfcbank.net), as test/fixtures/upi-emails/REAL-2026.md E-01 prints it, with the payer's chosen name.
    const credit = alertMail({
      id: 'legacy',
      from: 'HDFC Bank InstaAlerts <alerts@hdfcbank.net>',
      subject: 'View: Account update for your HDFC Bank A/c',
      text: `Dear Customer, Rs. 1.01 is successfully credited to your account **4321 by VPA attacker@okaxis ${NAME} on ${istToday()}. Your UPI transaction reference number is 632699990001. Thank you for banking with us. Warm Regards, HDFC Bank`,
    });
    // The 2026 debit template: the merchant paid someone whose name is the same sentence.
    const debit = alertMail({
      id: 'debit',
      from: 'HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>',
      subject: '❗ You have done a UPI txn. Check details!',
      text: `Dear Customer,\nRs.1.00 is debited from your account ending 4321 towards VPA attacker@okaxis (${NAME}) on ${istToday()}.\nUPI transaction reference no.: 632699990002.\n`,
    });
    const signedCredit = await signer.sign(credit, [{ domain: 'hdfcbank.net', selector: 's1' }]);
    await dovecot.append(signedCredit, { mailbox: 'Names' });
    await dovecot.append(await signer.sign(debit, [{ domain: 'hdfcbank.bank.in', selector: 's1' }]), { mailbox: 'Names' });

    await waitFor(async () => (await p.rejections()).some((r) => r.reason === 'suspicious_counterparty'), 10_000, 'the credit to be rejected suspicious_counterparty');
    // Read in order: a genuine alert appended now is seen after both.
    await dovecot.append(await signer.sign(hdfcCredit({ rupees: '5000.01', utr: '632699990003', account: '4321' }), [{ domain: 'hdfcbank.bank.in', selector: 's1' }]), { mailbox: 'Names' });
    await waitFor(async () => (await p.status(big.intent_id)) === 'settled', 10_000, 'the genuine ₹5000.01 alert to settle');

    assert.equal((await p.h.app.intents.get(big.intent_id)).transaction_hash, '632699990003', 'settled by the genuine alert, not by the ₹1.01 one');
    assert.equal(await p.status(small.intent_id), 'pending', 'the suspicious ₹1.01 credit (exactly the small intent\'s pay_amount) settles nothing');
    const payments = await p.h.app.payments.list({ limit: 10 });
    assert.deepEqual(payments.map((x) => x.tx_ref), ['632699990003'], 'neither the suspicious credit nor the debit became a payment');
    const rows = await p.h.app.db.selectFrom('rejections').select(['reason', 'raw', 'detail_json']).execute();
    assert.deepEqual(rows.map((r) => r.reason), ['suspicious_counterparty'], 'the debit is ignored, the credit kept');
    assert.equal(Buffer.from(rows[0].raw!).toString(), signedCredit.toString(), 'its raw message is kept');
    assert.match(rows[0].detail_json ?? '', /"field":"payerName"/);
  });
});

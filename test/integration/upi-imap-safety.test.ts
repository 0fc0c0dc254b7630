// Settlement safety of the UPI source, through the real app, a real Dovecot and a DNS server the
// test runs: a genuine bank alert addressed to someone else (replayed into our mailbox)
// or one whose To is not signed settles nothing and is listed as rejected; a message whose bank key
// never resolves is parked (the mailbox goes on), re-checked, survives a restart, and is finally
// rejected `dns_unresolved`. Keys are made here, never a bank's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HDFC_SIGNED_HEADERS, dkimSigner, hdfcCredit } from '../helpers/bank-alerts.ts';
import { dnsStub } from '../helpers/dns-stub.ts';
import { startDovecot, type Dovecot } from '../helpers/dovecot.ts';
import type { PaydHarness } from '../helpers/payd.ts';
import { startUpiPayd } from '../helpers/upi-payd.ts';
import { memoryLogger } from '../helpers/upi-imap-fakes.ts';
import { waitFor } from '../helpers/wait.ts';

const BANK = { domain: 'hdfcbank.bank.in', selector: 'acls01', headerList: HDFC_SIGNED_HEADERS };
// HDFC's e-mail provider signs every alert a second time (test/fixtures/upi-emails/REAL-2026.md §1.2).
const ESP = { domain: 'aclmobile.net', selector: '5nXKKHgBnyGAcLwvMLZIq' };
// A signature an attacker adds, from a domain whose name server never answers.
const SILENT_EXTRA = { domain: 'never-answers.example', selector: 'x' };
const US = 'merchant.payd@example.com';

describe('UPI alerts: recipient binding and parked mail (Dovecot + DNS)', () => {
  const signer = dkimSigner();
  const dns = dnsStub(signer.zone);
  let dnsServer: string;
  let dovecot: Dovecot;
  const harnesses: PaydHarness[] = [];
  let utrSeq = 632612340000;
  const utr = () => String(++utrSeq);

  before(async () => {
    dovecot = await startDovecot();
    dnsServer = await dns.start();
    // Published but silenced per test: its key exists, the name server just does not answer.
    signer.keyFor(BANK.domain, 'slow');
    signer.keyFor(BANK.domain, 'late');
    signer.keyFor(SILENT_EXTRA.domain, SILENT_EXTRA.selector);
    dns.silent.add(`${SILENT_EXTRA.selector}._domainkey.${SILENT_EXTRA.domain}`);
    dns.silent.add(`slow._domainkey.${BANK.domain}`);
  });
  after(async () => {
    for (const h of harnesses) await h.close().catch(() => {});
    await dovecot?.dispose();
    await dns.stop();
  });

  const payd = (mailbox: string, o: { retryHours: number; dir?: string; log?: ReturnType<typeof memoryLogger> }) =>
    startUpiPayd(dovecot, mailbox, { dnsServer, ...o }).then((p) => (harnesses.push(p.h), p));

  test('a replayed alert (signed To is someone else), an unsigned To and a forged extra To settle nothing; ours, signed twice, settles', async () => {
    const p = await payd('Replay', { retryHours: 24 });
    const it = await p.intent(120);
    const amount = Number(it.pay_amount.text).toFixed(2); // the bank prints paise: Rs.120.00

    // Same bank, same last digits, exactly pay_amount: a genuine alert the bank sent to the attacker.
    const replay = await signer.sign(hdfcCredit({ rupees: amount, utr: utr(), account: '4321', to: 'attacker@gmail.com' }), [BANK, ESP]);
    await dovecot.append(replay, { mailbox: 'Replay' });
    // The bank signed everything but To.
    const noTo = await signer.sign(hdfcCredit({ rupees: amount, utr: utr(), account: '4321' }), [{ ...BANK, headerList: 'content-type:message-id:subject:date:mime-version:from' }]);
    await dovecot.append(noTo, { mailbox: 'Replay' });
    // The replay with our address added on top: the signature covers the bottom To only.
    const extraTo = Buffer.concat([Buffer.from(`To: ${US}\r\n`), await signer.sign(hdfcCredit({ rupees: amount, utr: utr(), account: '4321', to: 'attacker@gmail.com' }), [BANK])]);
    await dovecot.append(extraTo, { mailbox: 'Replay' });

    await waitFor(async () => (await p.rejections()).length === 3, 8000, 'three rejections');
    const reasons = (await p.rejections()).map((r) => r.reason).sort();
    assert.deepEqual(reasons, ['recipient_mismatch', 'recipient_mismatch', 'recipient_unsigned']);
    assert.equal(await p.status(it.intent_id), 'pending', 'nothing settled the intent');
    assert.equal((await p.h.app.payments.list({})).length, 0, 'no payment was recorded');
    const rows = await p.h.app.db.selectFrom('rejections').select(['raw', 'reason']).execute();
    assert.ok(rows.every((r) => r.raw && Buffer.from(r.raw).includes('attacker@gmail.com') === (r.reason === 'recipient_mismatch')), 'raw message kept with each rejection');

    // Ours: To in capitals as real mail has it, the bank's signature plus the provider's.
    const ours = await signer.sign(hdfcCredit({ rupees: amount, utr: utr(), account: '4321', to: `Merchant <${US.toUpperCase()}>` }), [BANK, ESP]);
    await dovecot.append(ours, { mailbox: 'Replay' });
    await waitFor(async () => (await p.status(it.intent_id)) === 'settled', 8000, 'settlement by our own alert');
    assert.equal((await p.h.app.intents.get(it.intent_id)).transaction_hash, String(utrSeq));
  });

  test('a message whose bank key never answers does not hold up later mail; it is re-checked and finally rejected dns_unresolved', async () => {
    const log = memoryLogger();
    const p = await payd('Wedge', { retryHours: 0.0015, log }); // 5.4 s
    const it = await p.intent(130);
    const amount = Number(it.pay_amount.text).toFixed(2);

    // Signed by the bank with a selector whose look-up times out, plus an attacker's silent extra signature.
    const stuck = await signer.sign(hdfcCredit({ rupees: '131.00', utr: utr(), account: '4321' }), [{ ...BANK, selector: 'slow' }, SILENT_EXTRA]);
    await dovecot.append(stuck, { mailbox: 'Wedge' });
    // A genuine alert after it, also carrying the attacker's silent signature.
    const genuine = await signer.sign(hdfcCredit({ rupees: amount, utr: utr(), account: '4321' }), [BANK, SILENT_EXTRA]);
    const t0 = Date.now();
    await dovecot.append(genuine, { mailbox: 'Wedge' });
    await waitFor(async () => (await p.status(it.intent_id)) === 'settled', 6000, 'the later genuine alert to settle');
    const took = Date.now() - t0;
    assert.ok(took < 4000, `the genuine alert waited ${took} ms behind the stuck one`);
    assert.equal(await p.parked(), 1, 'the stuck message is parked, not dropped');

    await waitFor(async () => (await p.rejections()).some((r) => r.reason === 'dns_unresolved'), 15_000, 'the parked message to be rejected');
    assert.equal(await p.parked(), 0);
    const [row] = await p.h.app.db.selectFrom('rejections').selectAll().where('reason', '=', 'dns_unresolved').execute();
    assert.equal(Buffer.from(row.raw!).toString(), stuck.toString(), 'its raw message is kept');
    const retried = log.lines.filter((l) => /parked/.test(l.msg));
    assert.ok(retried.length >= 2, 'parked, then rejected, both logged');
    assert.equal((await p.h.app.payments.list({})).length, 1, 'only the genuine alert became a payment');
  });

  test('a parked message survives a restart and settles once the bank DNS answers', async () => {
    const dir = (await import('node:fs')).mkdtempSync(`${(await import('node:os')).tmpdir()}/payd-park-`);
    const late = `late._domainkey.${BANK.domain}`;
    dns.silent.add(late);
    let p = await payd('Restart', { retryHours: 24, dir });
    const it = await p.intent(140);
    await dovecot.append(await signer.sign(hdfcCredit({ rupees: it.pay_amount.text, utr: utr(), account: '4321' }), [{ ...BANK, selector: 'late' }]), { mailbox: 'Restart' });
    await waitFor(async () => (await p.parked()) === 1, 6000, 'the message to be parked');
    await p.h.close();

    // DNS recovers while payd is down; the mailbox checkpoint is already past the message.
    dns.silent.delete(late);
    p = await payd('Restart', { retryHours: 24, dir });
    await waitFor(async () => (await p.status(it.intent_id)) === 'settled', 8000, 'the parked alert to settle after the restart');
    assert.equal(await p.parked(), 0);
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  });
});

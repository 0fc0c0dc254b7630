// End to end with the real alert inspector: a DKIM-signed HDFC credit alert APPENDed to a real
// Dovecot becomes a payment; the same alert with its amount edited after signing is rejected.
// The signing key is generated here and served by an in-memory DNS zone (never the bank's key).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUpiSource } from '../../src/methods/upi/imap-source.ts';
import { hdfcCredit, signingKit } from '../helpers/bank-alerts.ts';
import { startDovecot, upiSourceConfig, type Dovecot } from '../helpers/dovecot.ts';
import { FakeLedger, memoryLogger, unusedMailStore } from '../helpers/upi-imap-fakes.ts';
import { sharedInspector } from '../helpers/inspector.ts';


describe('UPI mailbox source with the real DKIM inspector', () => {
  let dovecot: Dovecot;
  const ac = new AbortController();
  let running: Promise<void> | undefined;

  before(async () => {
    dovecot = await startDovecot();
  });
  after(async () => {
    ac.abort();
    await running;
    await dovecot?.dispose();
  });

  test('a signed credit alert is ingested with its paise and UTR; an edited copy is rejected and kept', async () => {
    const kit = signingKit();
    const ledger = new FakeLedger();
    const config = upiSourceConfig(dovecot);
    const source = createUpiSource(config, {
      ledger,
      store: unusedMailStore(),
      clock: { now: () => Date.now() },
      random: { bytes: (n) => new Uint8Array(n), uuid: () => crypto.randomUUID(), float: () => Math.random() },
      log: memoryLogger(),
      resolver: kit.resolver,
      inspect: await sharedInspector(),
      backoff: { baseMs: 100, maxMs: 1000 },
    });
    running = source.run(ac.signal);

    const signed = await kit.sign(hdfcCredit({ rupees: '499.37', utr: '632612345678', account: '4321' }));
    const uid = await dovecot.append(signed);
    await ledger.waitFor(() => ledger.recorded.length === 1, 5000, 'the signed credit');
    const p = ledger.recorded[0];
    assert.equal(p.method, 'UPI');
    assert.equal(p.amountMinor, 49937n);
    assert.equal(p.txRef, '632612345678');
    assert.equal(p.receiver, 'shop@hdfcbank');
    assert.equal(p.evidence?.bank, 'hdfc');
    assert.equal(p.evidence?.uid, uid);
    assert.equal((p.evidence?.auth as { verified: boolean }).verified, true);

    const forged = Buffer.from(
      (await kit.sign(hdfcCredit({ rupees: '4.37', utr: '632612345679', account: '4321' }))).toString().replace('Rs.4.37', 'Rs.4999.37'),
    );
    await dovecot.append(forged);
    await ledger.waitFor(() => ledger.rejections.length === 1, 5000, 'the rejection of the edited alert');
    assert.equal(ledger.recorded.length, 1, 'the edited alert settles nothing');
    const rejected = ledger.rejections[0].observation;
    assert.equal(Buffer.from(rejected.raw!).toString(), forged.toString());
    assert.equal(rejected.detail?.bank, 'hdfc');
    assert.match(rejected.reason, /^dkim_/, 'rejected for its signature, not its wording');
  });
});

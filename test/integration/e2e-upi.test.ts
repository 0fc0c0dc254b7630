// The whole UPI path through the real app: a DKIM-signed bank alert APPENDed to a real Dovecot
// → IMAP source (IDLE) → DKIM check against a DNS server the test runs (dkim.dnsServers)
// → ledger → settled intent → signed webhook. Forged and debit mail settle nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hdfcCredit, signingKit } from '../helpers/bank-alerts.ts';
import { dnsStub } from '../helpers/dns-stub.ts';
import { startDovecot, type Dovecot, upiDaemonSection } from '../helpers/dovecot.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { memoryLogger } from '../helpers/upi-imap-fakes.ts';
import { waitFor } from '../helpers/wait.ts';


// On both stores (test/helpers/stores.ts): raw mail, rejections and checkpoints included.
forEachStore((store) => {
  describe('UPI end to end', () => {
    const kit = signingKit();
    const dns = dnsStub(kit.zone);
    let dovecot: Dovecot;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let p: PaydHarness;
    let m: Awaited<ReturnType<PaydHarness['merchant']>>;
    const config = (dnsServer: string) => ({
      methods: {
        USDT_TRC20: undefined,
        SOL: undefined,
        USDT_SOL: undefined,
        UPI: upiDaemonSection(dovecot, dnsServer),
      },
    });

    before(async () => {
      dovecot = await startDovecot();
      receiver = await startReceiver();
      const log = memoryLogger();
      p = await startPayd({ store, workers: true, sources: 'configured', config: config(await dns.start()), log });
      // The inspector's worker thread starts with the first mail and loads its TypeScript through tsx:
      // seconds on a loaded machine, which is not what the promptness below measures (from dist/ it is
      // a fraction of a second). A first alert, paying another shop's intent, starts it.
      assert.ok(!log.lines.some((l) => l.msg === 'alert inspector ready'), 'no inspector thread before the first mail');
      const warm = await p.merchant('Warm-up shop');
      const warmIntent = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 7.77, currency: 'UPI', order_id: 'warm-up' }, headers: warm.headers })).body;
      await dovecot.append(await kit.sign(hdfcCredit({ rupees: '7.77', utr: '632612340000', account: '4321' })));
      await waitFor(async () => (await p.app.intents.get(warmIntent.intent_id)).status === 'settled', 60_000, 'the first alert (it starts the inspector) to settle');
      m = await p.merchant('Chai shop', receiver.url);
    });
    after(async () => {
      await p?.close();
      await receiver?.close();
      await dovecot?.dispose();
      await dns.stop();
    });

    const create = async (amount: number, order: string) => (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'UPI', order_id: order }, headers: m.headers })).body;
    const status = async (id: string) => (await p.app.intents.get(id)).status;

    test('a signed credit alert settles the intent with its UTR and the merchant gets the webhook', async () => {
      const intent = await create(499.37, 'chai-1');
      const t0 = Date.now();
      await dovecot.append(await kit.sign(hdfcCredit({ rupees: '499.37', utr: '632612345678', account: '4321' })));
      await waitFor(async () => (await status(intent.intent_id)) === 'settled', 5000, 'settlement');
      const [hook] = await receiver.waitFor(1, 3000);
      assert.ok(hook.at - t0 < 3000, `append → webhook took ${hook.at - t0} ms`);
      const fetched = await p.app.intents.get(intent.intent_id);
      assert.equal(fetched.transaction_hash, '632612345678');
      assert.equal(JSON.parse(hook.body).data.transaction_hash, '632612345678');
    });

    test('an alert edited after signing, a debit, and another account settle nothing', async () => {
      const intent = await create(120, 'chai-2');
      const forged = Buffer.from((await kit.sign(hdfcCredit({ rupees: '1.00', utr: '632612345680', account: '4321' }))).toString().replace('Rs.1.00', 'Rs.120.00'));
      await dovecot.append(forged);
      await dovecot.append(await kit.sign(hdfcCredit({ rupees: '120.00', utr: '632612345681', account: '9999' })));
      // Both are kept for the operator: the forged one for its signature, the genuine one for its account.
      await waitFor(async () => (await p.app.payments.rejections()).length === 2, 5000, 'the forged and the other-account alert to be rejected');
      const reasons = (await p.app.payments.rejections()).map((r) => r.reason).sort();
      assert.match(reasons[0], /^dkim_/);
      assert.equal(reasons[1], 'other_account');
      assert.equal(await status(intent.intent_id), 'pending');
      assert.equal((await p.app.payments.list({})).length, 2, 'only the genuine alerts (the warm-up and the first test) became payments');
    });
  });
});

// UPI silence through the real daemon: the real UPI source on Dovecot, the real DKIM inspector
// (a test key served by an in-memory DNS zone), the real ledger on both stores, and a clock the
// test moves by hours. A mailbox that stays silent for expectAlertWithinHours after a UPI intent
// turns /readyz 503 (naming UPI, "silent") and doctor red; a verified alert brings it back; with
// no intent there is no alarm, however long the silence.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUpiSource } from '../../src/methods/upi/imap-source.ts';
import { createUpiMailStore } from '../../src/methods/upi/mail-store.ts';
import { systemRandom } from '../../src/system.ts';
import { hdfcCredit, signingKit } from '../helpers/bank-alerts.ts';
import { startDovecot, upiSourceConfig, type Dovecot } from '../helpers/dovecot.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';
import { memoryLogger } from '../helpers/upi-imap-fakes.ts';
import { waitFor } from '../helpers/wait.ts';

const HOUR = 3_600_000;

let dovecot: Dovecot;
before(async () => {
  dovecot = await startDovecot();
});
after(() => dovecot?.dispose());

const readyz = async (p: PaydHarness) => {
  const res = await fetch(p.url + '/readyz');
  return { status: res.status, body: (await res.json()) as any };
};

/** The sample's value, or undefined when the series is absent. */
const alertAge = async (p: PaydHarness, account: string): Promise<number | undefined> => {
  const text = await (await fetch(p.url + '/metrics')).text();
  const m = new RegExp(`^payd_upi_last_alert_age_seconds\\{bank="hdfc",account="${account}"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

forEachStore((store) => {
  test('UPI silence: no intent → no alarm; an intent unanswered for expectAlertWithinHours → /readyz 503 "silent" and doctor red; a verified alert → ready again', async (t) => {
    const mailbox = `Silence${store.kind}`;
    await dovecot.createMailbox(mailbox);
    const kit = signingKit();
    const clock = testClock();
    // Re-syncs twice a second: after each jump of the clock the source completes a cycle at the new time at once.
    const cfg = upiSourceConfig(dovecot, mailbox, { resyncSeconds: 0.5 });
    const p = await startPayd({
      clock,
      store,
      workers: true,
      config: {
        methods: {
          UPI: {
            vpa: cfg.vpa,
            payeeName: cfg.payeeName,
            imap: { host: 'unused', user: 'payd', password: 'x' },
            alertRecipients: cfg.alertRecipients,
            accounts: [{ bank: 'hdfc', accountEnding: '4321' }, { bank: 'hdfc', accountEnding: '987654321012' }],
            expectAlertWithinHours: 2,
          },
          USDT_TRC20: undefined,
          SOL: undefined,
          USDT_SOL: undefined,
        },
      },
      // Keyed by its name, not "UPI": the mailbox's own lag (the clock jumps hours) is not what this test reads.
      sources: ({ ledger, db }) => [
        createUpiSource(cfg, { ledger, store: createUpiMailStore(db), clock, random: systemRandom, log: memoryLogger(), resolver: kit.resolver, backoff: { baseMs: 100, maxMs: 1000 } }),
      ],
    });
    t.after(() => p.close());
    const synced = () => waitFor(async () => (await readyz(p)).body.sources?.['upi-imap']?.state === 'ok', 10_000, 'the mailbox source to sync');
    /** Moves the clock, then waits until the mailbox synced at the new time and the silence facts (cached 2 s) are fresh. */
    const jump = async (ms: number) => {
      clock.advance(ms);
      await new Promise((res) => setTimeout(res, 2100));
      await synced();
    };
    await synced();

    // A shop with no sales: hours of silence, no alarm.
    await jump(30 * HOUR);
    let r = await readyz(p);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.alerts.UPI, { state: 'ok', last_verified_at: null, waiting_since: null, expect_alert_within_hours: 2 });
    assert.equal(await alertAge(p, '4321'), undefined, 'no verified alert recorded: no series');

    const m = await p.merchant();
    const merchant = await p.app.merchants.get(m.clientId);
    const created = clock.now();
    await p.app.intents.create(merchant, { amount: 250, currency: 'UPI', order_id: `silence-${store.kind}` });

    // Within the window: still ready.
    await jump(HOUR + 55 * 60_000);
    r = await readyz(p);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.alerts.UPI.waiting_since, new Date(created).toISOString());

    // Past it: 503 naming UPI, and doctor fails with plain words.
    await jump(10 * 60_000);
    r = await readyz(p);
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.status, 'unavailable');
    assert.deepEqual(r.body.failing, ['UPI']);
    assert.equal(r.body.alerts.UPI.state, 'silent');
    let lines = await p.app.doctor.run();
    const red = lines.find((l) => l.what === 'UPI alerts');
    assert.equal(red?.ok, false);
    assert.match(red!.message, /^silent: No verified bank alert has ever arrived, although a UPI payment was requested 2 h 5 min ago \(expectAlertWithinHours 2\)/);
    assert.deepEqual(
      lines.filter((l) => l.what.startsWith('UPI HDFC')).map((l) => [l.what, l.message]),
      [
        ['UPI HDFC …4321', 'no verified alert recorded yet'],
        ['UPI HDFC …1012', 'no verified alert recorded yet'],
      ],
    );

    // An alert for another account of the mailbox owner settles nothing and does not count.
    await dovecot.append(await kit.sign(hdfcCredit({ rupees: '12.00', utr: '632600000001', account: '5555' })), { mailbox });
    await waitFor(async () => (await p.app.payments.rejections()).length === 1, 10_000, 'the other account\'s alert to be kept as a rejection');
    await jump(0);
    assert.equal((await readyz(p)).status, 503, 'an alert for an unconfigured account is not a sign of life');

    // A verified credit to the configured account (any amount: matched or not, the mailbox works).
    await dovecot.append(await kit.sign(hdfcCredit({ rupees: '77.00', utr: '632600000002', account: '4321' })), { mailbox });
    const back = await waitFor(async () => {
      const x = await readyz(p);
      return x.status === 200 && x;
    }, 15_000, '/readyz to recover after a verified alert');
    assert.equal(back.body.alerts.UPI.state, 'ok');
    assert.equal(back.body.alerts.UPI.last_verified_at, new Date(clock.now()).toISOString());
    assert.equal(back.body.alerts.UPI.waiting_since, null);
    lines = await p.app.doctor.run();
    assert.equal(lines.find((l) => l.what === 'UPI alerts')?.ok, true);
    assert.match(lines.find((l) => l.what === 'UPI HDFC …4321')!.message, /^last verified alert 0 s ago \(/);
    assert.equal(lines.find((l) => l.what === 'UPI HDFC …1012')!.message, 'no verified alert recorded yet');
    assert.equal(await alertAge(p, '4321'), 0);
    assert.equal(await alertAge(p, '1012'), undefined);

    // The age grows with the clock; with no new intent there is still no alarm.
    await jump(12 * HOUR);
    assert.equal(await alertAge(p, '4321'), 12 * 3600);
    assert.equal((await readyz(p)).status, 200);
  });
});

// payd with the real UPI source on a Dovecot mailbox and a DNS server the test runs: the real
// ledger, store and inspector, with short DNS deadlines and fast parked-mail retries.
import type { ConfiguredAccount } from '../../src/methods/upi/alert.ts';
import { createUpiSource } from '../../src/methods/upi/imap-source.ts';
import { createUpiMailStore } from '../../src/methods/upi/mail-store.ts';
import type { PaymentSource } from '../../src/methods/source.ts';
import { systemRandom } from '../../src/system.ts';
import { upiSourceConfig, type Dovecot } from './dovecot.ts';
import { startPayd, type PaydHarness } from './payd.ts';
import { memoryLogger } from './upi-imap-fakes.ts';
import { sharedInspector } from './inspector.ts';

export const ALERT_RECIPIENT = 'merchant.payd@example.com';

export async function startUpiPayd(
  dovecot: Dovecot,
  mailbox: string,
  o: { dnsServer: string; retryHours: number; dir?: string; log?: ReturnType<typeof memoryLogger>; accounts?: ConfiguredAccount[] },
) {
  if (mailbox !== 'INBOX') await dovecot.createMailbox(mailbox).catch(() => {}); // exists after a restart
  const cfg = { ...upiSourceConfig(dovecot, mailbox), alertRecipients: [ALERT_RECIPIENT], ...(o.accounts ? { accounts: o.accounts } : {}) };
  cfg.dkim = { required: true, dnsServers: [o.dnsServer], retryHours: o.retryHours };
  const inspect = await sharedInspector();
  const h: PaydHarness = await startPayd({
    ...(o.dir ? { dir: o.dir } : {}),
    workers: true,
    config: { methods: { UPI: { vpa: cfg.vpa, payeeName: cfg.payeeName, imap: { host: 'unused', user: 'payd', password: 'x' }, alertRecipients: [ALERT_RECIPIENT], accounts: cfg.accounts } } },
    sources: ({ ledger, db }): PaymentSource[] => [
      createUpiSource(cfg, {
        ledger,
        store: createUpiMailStore(db),
        clock: { now: () => Date.now() },
        random: systemRandom,
        log: o.log ?? memoryLogger(),
        inspect,
        dnsTimeoutMs: 800,
        retryMs: 300,
        backoff: { baseMs: 100, maxMs: 1000 },
      }),
    ],
  });
  const m = await h.merchant('Chai shop');
  let orders = 0;
  const intent = async (amount: number) => h.app.intents.create(await h.app.merchants.get(m.clientId), { amount, currency: 'UPI', order_id: `o-${++orders}-${Date.now()}` });
  const status = async (id: string) => (await h.app.intents.get(id)).status;
  const rejections = async () => h.app.payments.rejections();
  const parked = async () => (await h.app.db.selectFrom('upi_parked_mail').selectAll().execute()).length;
  return { h, intent, status, rejections, parked };
}

import { isVpa } from '../../config/addresses.ts';
import { formatMinorFixed } from '../../domain/money.ts';
import type { MethodDescriptor } from '../method.ts';
import { UpiConfig, type UpiSection } from './config.ts';
import { UPI_ID } from './id.ts';
import { createUpiSilence } from './silence.ts';

const q = encodeURIComponent;

/** UPI: rupees to a VPA, read from the bank's signed credit-alert e-mails over IMAP. */
export const upiMethod: MethodDescriptor<UpiSection> = {
  id: UPI_ID,
  family: 'upi',
  rules: { decimals: 2, amountStep: 1n, unit: 'INR', roundUnitMinor: 100n }, // 0.01 INR; never a whole rupee
  // A UTR is digits ("UTR 1234 5678 9012" is the same transfer).
  txRef: { noun: 'UTR (digits)', normalize: (t) => t.replace(/\D/g, '') },
  config: UpiConfig,
  receiver: (s) => s.vpa,
  payeeName: (s) => s.payeeName,
  // NPCI UPI linking spec: pa, pn, am (2 decimals), cu, tn.
  paymentUri: (d) => `upi://pay?pa=${q(d.receiver)}&pn=${q(d.payeeName)}&am=${formatMinorFixed(d.payAmountMinor, 2)}&cu=INR&tn=${q(d.orderId)}`,
  checkout: { label: 'UPI', appButton: 'Pay with a UPI app', scanWith: 'UPI', addressLabel: 'UPI ID (VPA)', fiatSign: '₹' },
  sandbox: {
    receiver: 'sandbox.shop@paydsandbox',
    txRef: (bytes) => String(BigInt('0x' + Buffer.from(bytes).toString('hex').slice(0, 15)) % 10n ** 12n).padStart(12, '0'),
  },
  openapi: {
    example: {
      amount: 100.5,
      pay_amount: 100.51,
      payment_address: 'shop@hdfcbank',
      payment_uri: 'upi://pay?pa=shop%40hdfcbank&pn=Example%20Shop&am=100.51&cu=INR&tn=ORD-1',
      transaction_hash: '412345678901',
      range: [1, 100000],
    },
  },
  init: {
    order: 10,
    async ask({ input, confirm, number, req, secret, credentials }) {
      if (!(await confirm({ message: 'Accept UPI (bank credit-alert e-mails over IMAP)?', default: false }))) return undefined;
      const vpa = (await input({ message: 'Your UPI VPA', validate: req(isVpa, 'expected something like shop@hdfcbank') })).trim();
      const payeeName = await input({ message: 'Payee name shown to customers', required: true });
      const imapHost = await input({ message: 'IMAP host', required: true });
      const imapPort = (await number({ message: 'IMAP port', default: 993, required: true })) ?? 993;
      const secure = await confirm({ message: 'IMAP over TLS?', default: true });
      const user = await input({ message: 'IMAP user', required: true });
      const password = await secret({ path: 'methods.UPI.imap.password', what: 'IMAP password', env: 'PAYD_IMAP_PASSWORD', credential: credentials.imapPassword });
      const bank = await input({ message: 'Bank id (hdfc, icici, sbi, axis, kotak, yes, indusind, federal)', default: 'hdfc' });
      const accountEnding = await input({ message: 'Last 4 digits of the receiving account', validate: req((s) => /^\d{3,6}$/.test(s), 'expected 3 to 6 digits') });
      // Only alerts the bank signed to this address count: a replayed alert for someone else must not settle.
      const recipient = await input({
        message: 'E-mail address the bank sends the alerts to',
        ...(user.trim().includes('@') ? { default: user.trim() } : {}),
        validate: req((s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), 'expected an e-mail address'),
      });
      return { vpa, payeeName, imap: { host: imapHost, port: imapPort, secure, user, password, mailbox: 'INBOX' }, accounts: [{ bank, accountEnding }], alertRecipients: [recipient.trim()] };
    },
  },
  mailbox: {
    get imapPath() {
      return `methods.${upiMethod.id}.imap`;
    },
    client: (s) => ({ clientId: s.imap.auth?.clientId, clientSecret: s.imap.auth?.clientSecret?.reveal() }),
    // Loaded on use: the token endpoint's HTTP client (undici) would slow every other command's start-up.
    authorize: async (o) => (await import('./oauth/operator.ts')).authorizeMailbox(o),
  },
  silence: (s, deps) => createUpiSilence({ ...deps, method: upiMethod.id, accounts: s.accounts, expectAlertWithinHours: s.expectAlertWithinHours }),
  warnings: (s) => (s.dkim.required ? [] : [`methods.${upiMethod.id}.dkim.required is false: forged bank e-mails can settle intents`]),
  async loadSource(section, deps) {
    // Parked and unreadable mail must survive restarts: the UPI source keeps them in the database.
    if (!deps.db) throw new Error('the UPI source needs the database');
    const [{ createUpiSource }, { createUpiMailStore }] = await Promise.all([import('./imap-source.ts'), import('./mail-store.ts')]);
    return createUpiSource(section, { ...deps, store: createUpiMailStore(deps.db) });
  },
};

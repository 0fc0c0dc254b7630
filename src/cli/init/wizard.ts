import { isSolanaAddress, isTronAddress, isVpa } from '../../config/addresses.ts';
import type { Prompter } from '../prompter.ts';
import { SYSTEMD } from '../systemd-recipe.ts';
import { secretSource, type Asked, type Json, type NeededSecret, type SecretRef } from './secrets.ts';

/** What `payd init --yes` writes, and the base every answer fills in. */
export const DEFAULT_CONFIG: Json = {
  server: { host: '127.0.0.1', port: 8080, publicUrl: 'http://127.0.0.1:8080' },
  database: { file: 'data/payd.sqlite' },
  intents: { ttlSeconds: 1800, amountReuseCooldownSeconds: 86400 },
  webhooks: { timeoutSeconds: 10, allowInsecureUrls: false },
  methods: {},
};

/** The config `--yes` writes: the defaults (under systemd, the master key as its credential). */
export function defaultAnswers(systemd: boolean): Asked {
  const server = { ...(DEFAULT_CONFIG.server as Json), ...(systemd ? { masterKey: { file: `$CREDENTIALS_DIRECTORY/${SYSTEMD.credentials.masterKey}` } } : {}) };
  return {
    json: { ...DEFAULT_CONFIG, server, ...(systemd ? { database: { file: SYSTEMD.database } } : {}) },
    secrets: systemd ? [{ path: 'server.masterKey', what: 'master key', ref: server.masterKey as SecretRef, credential: SYSTEMD.credentials.masterKey }] : [],
  };
}

/** Asks for the settings; secrets are stored as { env } / { file } references, never inline. */
export async function ask(p: Prompter, systemd: boolean): Promise<Asked> {
  const { input, confirm, number } = p;
  const needed: NeededSecret[] = [];
  const req = (check: (s: string) => boolean, msg: string) => (s: string) => check(s.trim()) || msg;
  const host = await input({ message: 'Listen address', default: '127.0.0.1' });
  const port = (await number({ message: 'Listen port', default: 8080, min: 1, max: 65535, required: true })) ?? 8080;
  const publicUrl = await input({ message: 'Public base URL (for checkout links)', default: systemd ? 'https://pay.example.com' : `http://${host}:${port}` });
  const file = systemd ? SYSTEMD.database : await input({ message: 'Database file', default: 'data/payd.sqlite' });
  const methods: Json = {};
  if (await confirm({ message: 'Accept UPI (bank credit-alert e-mails over IMAP)?', default: false })) {
    const vpa = (await input({ message: 'Your UPI VPA', validate: req(isVpa, 'expected something like shop@hdfcbank') })).trim();
    const payeeName = await input({ message: 'Payee name shown to customers', required: true });
    const imapHost = await input({ message: 'IMAP host', required: true });
    const imapPort = (await number({ message: 'IMAP port', default: 993, required: true })) ?? 993;
    const secure = await confirm({ message: 'IMAP over TLS?', default: true });
    const user = await input({ message: 'IMAP user', required: true });
    const password = await secretSource(p, systemd, { path: 'methods.UPI.imap.password', what: 'IMAP password', env: 'PAYD_IMAP_PASSWORD', credential: SYSTEMD.credentials.imapPassword }, needed);
    const bank = await input({ message: 'Bank id (hdfc, icici, sbi, axis, kotak, yes, indusind, federal)', default: 'hdfc' });
    const accountEnding = await input({ message: 'Last 4 digits of the receiving account', validate: req((s) => /^\d{3,6}$/.test(s), 'expected 3 to 6 digits') });
    // Only alerts the bank signed to this address count: a replayed alert for someone else must not settle.
    const recipient = await input({
      message: 'E-mail address the bank sends the alerts to',
      ...(user.trim().includes('@') ? { default: user.trim() } : {}),
      validate: req((s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), 'expected an e-mail address'),
    });
    methods.UPI = { vpa, payeeName, imap: { host: imapHost, port: imapPort, secure, user, password, mailbox: 'INBOX' }, accounts: [{ bank, accountEnding }], alertRecipients: [recipient.trim()] };
  }
  if (await confirm({ message: 'Accept USDT on TRON (TRC20)?', default: false })) {
    const address = (await input({ message: 'Your TRON address', validate: req(isTronAddress, 'expected a TRON address (T…)') })).trim();
    const section: Json = { address };
    if (await confirm({ message: 'Use a TronGrid API key (recommended: without one TronGrid rate-limits hard)?', default: true })) {
      section.apiKey = await secretSource(p, systemd, { path: 'methods.USDT_TRC20.apiKey', what: 'TronGrid API key', env: 'PAYD_TRONGRID_KEY', credential: SYSTEMD.credentials.trongridKey }, needed);
    }
    methods.USDT_TRC20 = section;
  }
  for (const [method, what] of [['SOL', 'SOL on Solana'], ['USDT_SOL', 'USDT on Solana']] as const) {
    if (await confirm({ message: `Accept ${what}?`, default: false })) {
      methods[method] = { wallet: (await input({ message: 'Your Solana wallet address', validate: req(isSolanaAddress, 'expected a base58 public key') })).trim() };
    }
  }
  const server: Json = { host, port, publicUrl };
  if (systemd) {
    server.masterKey = { file: `$CREDENTIALS_DIRECTORY/${SYSTEMD.credentials.masterKey}` };
    needed.push({ path: 'server.masterKey', what: 'master key', ref: server.masterKey as SecretRef, credential: SYSTEMD.credentials.masterKey });
  }
  return { json: { ...DEFAULT_CONFIG, server, database: { file }, methods }, secrets: needed };
}

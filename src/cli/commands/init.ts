import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseConfig } from '../../config/load.ts';
import { isSolanaAddress, isTronAddress, isVpa } from '../../config/addresses.ts';
import { PaydError } from '../../domain/errors.ts';
import type { CliEnv } from '../context.ts';
import { leaf, type Opts } from './leaf.ts';

type Json = Record<string, unknown>;

export const DEFAULT_CONFIG: Json = {
  server: { host: '127.0.0.1', port: 8080, publicUrl: 'http://127.0.0.1:8080' },
  database: { file: 'data/payd.sqlite' },
  intents: { ttlSeconds: 1800, amountReuseCooldownSeconds: 86400 },
  webhooks: { timeoutSeconds: 10, allowInsecureUrls: false },
  methods: {},
};

/** The three questions payd asks; @inquirer/prompts by default, a script in tests. */
export interface Prompter {
  input(o: { message: string; default?: string; required?: boolean; validate?: (s: string) => boolean | string }): Promise<string>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
  number(o: { message: string; default?: number; min?: number; max?: number; required?: boolean }): Promise<number | undefined>;
}

/** Asks for the settings; secrets are stored as { env } references, never inline. */
async function ask(prompter?: Prompter): Promise<Json> {
  const { input, confirm, number } = prompter ?? (await import('@inquirer/prompts'));
  const req = (check: (s: string) => boolean, msg: string) => (s: string) => check(s.trim()) || msg;
  const host = await input({ message: 'Listen address', default: '127.0.0.1' });
  const port = (await number({ message: 'Listen port', default: 8080, min: 1, max: 65535, required: true })) ?? 8080;
  const publicUrl = await input({ message: 'Public base URL (for checkout links)', default: `http://${host}:${port}` });
  const file = await input({ message: 'Database file', default: 'data/payd.sqlite' });
  const methods: Json = {};
  if (await confirm({ message: 'Accept UPI (bank credit-alert e-mails over IMAP)?', default: false })) {
    methods.UPI = {
      vpa: (await input({ message: 'Your UPI VPA', validate: req(isVpa, 'expected something like shop@hdfcbank') })).trim(),
      payeeName: await input({ message: 'Payee name shown to customers', required: true }),
      imap: {
        host: await input({ message: 'IMAP host', required: true }),
        port: (await number({ message: 'IMAP port', default: 993, required: true })) ?? 993,
        secure: await confirm({ message: 'IMAP over TLS?', default: true }),
        user: await input({ message: 'IMAP user', required: true }),
        password: { env: 'PAYD_IMAP_PASSWORD' },
        mailbox: 'INBOX',
      },
      accounts: [
        {
          bank: await input({ message: 'Bank id (hdfc, icici, sbi, axis, kotak, yes, indusind, federal)', default: 'hdfc' }),
          accountEnding: await input({ message: 'Last 4 digits of the receiving account', validate: req((s) => /^\d{3,6}$/.test(s), 'expected 3 to 6 digits') }),
        },
      ],
    };
    // Only alerts the bank signed to this address count: a replayed alert for someone else must not settle.
    const user = String((methods.UPI as { imap: { user: string } }).imap.user).trim();
    const recipient = await input({
      message: 'E-mail address the bank sends the alerts to',
      ...(user.includes('@') ? { default: user } : {}),
      validate: req((s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), 'expected an e-mail address'),
    });
    (methods.UPI as Json).alertRecipients = [recipient.trim()];
  }
  if (await confirm({ message: 'Accept USDT on TRON (TRC20)?', default: false })) {
    methods.USDT_TRC20 = {
      address: (await input({ message: 'Your TRON address', validate: req(isTronAddress, 'expected a TRON address (T…)') })).trim(),
      apiKey: { env: 'PAYD_TRONGRID_KEY' },
    };
  }
  for (const [method, what] of [['SOL', 'SOL on Solana'], ['USDT_SOL', 'USDT on Solana']] as const) {
    if (await confirm({ message: `Accept ${what}?`, default: false })) {
      methods[method] = { wallet: (await input({ message: 'Your Solana wallet address', validate: req(isSolanaAddress, 'expected a base58 public key') })).trim() };
    }
  }
  return { ...DEFAULT_CONFIG, server: { host, port, publicUrl }, database: { file }, methods };
}

export function initCommand(program: Command, e: CliEnv): void {
  leaf(program.command('init').description('write a config file and create the database'))
    .option('--yes', 'use the defaults without asking')
    .option('--force', 'overwrite an existing config file')
    .action(async (o: Opts, cmd: Command) => {
      const g = cmd.optsWithGlobals();
      const file = resolve(e.cwd, (g.config as string | undefined) ?? e.env.PAYD_CONFIG ?? 'payd.config.json');
      if (existsSync(file) && !o.force) throw new PaydError('CONFLICT', `${file} already exists; use --force to overwrite it`);
      const json = o.yes ? DEFAULT_CONFIG : await ask(e.prompter);
      // Validate before writing: a config that payd would refuse is never written.
      const config = parseConfig(json, dirname(file), { ...e.env, PAYD_IMAP_PASSWORD: 'x', PAYD_TRONGRID_KEY: 'x' });
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(json, null, 2) + '\n', { mode: 0o640 });
      const [{ databaseFile }, { migrate, openDatabase }] = await Promise.all([import('../../app.ts'), import('../../db/open.ts')]);
      const dbFile = databaseFile(config, false);
      const db = openDatabase(dbFile);
      try {
        await migrate(db);
      } finally {
        await db.destroy();
      }
      e.io.out(`wrote ${file}\ncreated ${dbFile}\nnext: payd merchant create --name "My shop" --config ${file}`);
    });
}

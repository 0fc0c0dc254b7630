import type { Config } from '../config/load.ts';
import type { Method } from '../domain/methods.ts';
import type { Db } from '../db/open.ts';
import type { MailboxTokenStore } from '../services/mailbox-tokens.ts';
import { createSolanaSource } from './solana/source.ts';
import type { PaymentSource, SourceDeps } from './source.ts';
import { createTronSource } from './tron/source.ts';
import { createUpiSource } from './upi/imap-source.ts';
import { createUpiMailStore } from './upi/mail-store.ts';

/** One live source per enabled method, built from its config section. */
export function createSources(config: Config, deps: SourceDeps & { db?: Db; mailboxTokens?: MailboxTokenStore }): PaymentSource[] {
  const m = config.methods;
  const sources: PaymentSource[] = [];
  if (m.UPI) {
    // Parked and unreadable mail must survive restarts: the UPI source keeps them in the database.
    if (!deps.db) throw new Error('the UPI source needs the database');
    sources.push(forMethod('UPI', createUpiSource(m.UPI, { ...deps, store: createUpiMailStore(deps.db) })));
  }
  if (m.USDT_TRC20) sources.push(forMethod('USDT_TRC20', createTronSource(m.USDT_TRC20, deps)));
  if (m.SOL) sources.push(forMethod('SOL', createSolanaSource('SOL', m.SOL, deps)));
  if (m.USDT_SOL) sources.push(forMethod('USDT_SOL', createSolanaSource('USDT_SOL', m.USDT_SOL, deps)));
  return sources;
}

const forMethod = (method: Method, source: PaymentSource): PaymentSource => Object.assign(source, { method });

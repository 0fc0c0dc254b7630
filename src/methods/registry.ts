import type { Config } from '../config/load.ts';
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
    sources.push(createUpiSource(m.UPI, { ...deps, store: createUpiMailStore(deps.db) }));
  }
  if (m.USDT_TRC20) sources.push(createTronSource(m.USDT_TRC20, deps));
  if (m.SOL) sources.push(createSolanaSource('SOL', m.SOL, deps));
  if (m.USDT_SOL) sources.push(createSolanaSource('USDT_SOL', m.USDT_SOL, deps));
  return sources;
}

import type { Config } from '../config/load.ts';
import type { MailboxTokenStore } from '../services/mailbox-tokens.ts';
import { createSolanaSource } from './solana/source.ts';
import type { PaymentSource, SourceDeps } from './source.ts';
import { createTronSource } from './tron/source.ts';
import { createUpiSource } from './upi/imap-source.ts';

/** One live source per enabled method, built from its config section. */
export function createSources(config: Config, deps: SourceDeps & { mailboxTokens?: MailboxTokenStore }): PaymentSource[] {
  const m = config.methods;
  const sources: PaymentSource[] = [];
  if (m.UPI) sources.push(createUpiSource(m.UPI, deps));
  if (m.USDT_TRC20) sources.push(createTronSource(m.USDT_TRC20, deps));
  if (m.SOL) sources.push(createSolanaSource('SOL', m.SOL, deps));
  if (m.USDT_SOL) sources.push(createSolanaSource('USDT_SOL', m.USDT_SOL, deps));
  return sources;
}

import type { Config } from '../config/load.ts';
import type { Method } from '../domain/methods.ts';
import type { Db } from '../db/open.ts';
import type { MailboxTokenStore } from '../domain/ports.ts';
import type { PaymentSource, SourceDeps } from './source.ts';

/**
 * One live source per enabled method, built from its config section. Each method's module
 * is imported only when its method is enabled: @solana/web3.js, imapflow and mailauth cost
 * start-up time and tens of MB each, and most commands need none. (The TRON source needs no
 * tronweb: base58check is all it used; UPI's mail parsers load with the first mail.)
 */
export async function createSources(config: Config, deps: SourceDeps & { db?: Db; mailboxTokens?: MailboxTokenStore }): Promise<PaymentSource[]> {
  const m = config.methods;
  const sources: PaymentSource[] = [];
  if (m.UPI) {
    // Parked and unreadable mail must survive restarts: the UPI source keeps them in the database.
    if (!deps.db) throw new Error('the UPI source needs the database');
    const [{ createUpiSource }, { createUpiMailStore }] = await Promise.all([import('./upi/imap-source.ts'), import('./upi/mail-store.ts')]);
    sources.push(forMethod('UPI', createUpiSource(m.UPI, { ...deps, store: createUpiMailStore(deps.db) })));
  }
  if (m.USDT_TRC20) sources.push(forMethod('USDT_TRC20', (await import('./tron/source.ts')).createTronSource(m.USDT_TRC20, deps)));
  if (m.SOL || m.USDT_SOL) {
    const { createSolanaSource } = await import('./solana/source.ts');
    if (m.SOL) sources.push(forMethod('SOL', createSolanaSource('SOL', m.SOL, deps)));
    if (m.USDT_SOL) sources.push(forMethod('USDT_SOL', createSolanaSource('USDT_SOL', m.USDT_SOL, deps)));
  }
  return sources;
}

const forMethod = (method: Method, source: PaymentSource): PaymentSource => Object.assign(source, { method });

/** One Solana transaction → one ReceivedPayment (or the reason it is none). Pure. */
import type { ReceivedPayment } from '../../domain/payment.ts';
import { payerOf, referenceCandidates, solCredit, succeeded, tokenCredit, type TxView } from './validate.ts';

/** What one source watches: the wallet for SOL, the wallet's ATA for the mint for a token; the method it feeds and its decimals. */
export type WatchTarget = { method: string; decimals: number; wallet: string; /** the address listed for signatures */ account: string } & (
  | { kind: 'native' }
  | { kind: 'spl'; mint: string; /** Program owning the mint: SPL Token or Token-2022. */ tokenProgram?: string }
);

export type Adapted = { kind: 'payment'; payment: ReceivedPayment } | { kind: 'skip'; reason: 'failed' | 'no_credit' };

export function adaptTransaction(tx: TxView, signature: string, target: WatchTarget, observedAt: number): Adapted {
  if (!succeeded(tx)) return { kind: 'skip', reason: 'failed' };
  const amountMinor =
    target.kind === 'native'
      ? solCredit(tx, target.wallet)
      : tokenCredit(tx, { wallet: target.wallet, ata: target.account, mint: target.mint, decimals: target.decimals });
  if (amountMinor <= 0n) return { kind: 'skip', reason: 'no_credit' };
  const blockTime = tx.blockTime ?? null;
  return {
    kind: 'payment',
    payment: {
      method: target.method,
      receiver: target.wallet,
      amountMinor,
      txRef: signature,
      references: referenceCandidates(tx),
      // A node may not know the block time; then "when we saw it" is the best bound we have.
      occurredAt: blockTime != null ? blockTime * 1000 : observedAt,
      observedAt,
      source: 'solana',
      evidence: {
        slot: tx.slot,
        blockTime,
        payer: payerOf(tx) ?? null,
        ...(target.kind === 'spl' ? { tokenAccount: target.account, mint: target.mint } : {}),
      },
    },
  };
}

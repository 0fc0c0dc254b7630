/**
 * Pure reading of a jsonParsed `getTransaction` result: what did it credit, and which
 * keys could be Solana Pay references. No I/O; web3.js's ParsedTransactionWithMeta
 * fits these shapes, and so does the raw JSON (keys as strings).
 */
import { WELL_KNOWN_PROGRAMS } from './accounts.ts';

/** web3.js hands keys over as PublicKey; raw JSON has strings. */
export type KeyLike = string | { toBase58(): string };

export interface TokenBalanceView {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

export interface TxView {
  slot: number;
  blockTime?: number | null;
  meta: {
    err: unknown;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances?: TokenBalanceView[] | null;
    postTokenBalances?: TokenBalanceView[] | null;
    innerInstructions?: { instructions: { programId: KeyLike }[] }[] | null;
  } | null;
  transaction: {
    signatures: string[];
    message: {
      /** For v0 this already includes lookup-table addresses (jsonParsed), in balance-index order. */
      accountKeys: { pubkey: KeyLike; signer: boolean; writable: boolean }[];
      instructions: { programId: KeyLike }[];
    };
  };
}

export const b58 = (k: KeyLike): string => (typeof k === 'string' ? k : k.toBase58());

export const accountKeys = (tx: TxView): string[] => tx.transaction.message.accountKeys.map((k) => b58(k.pubkey));

/** A failed transaction moved nothing but fees, whatever its balances say. */
export const succeeded = (tx: TxView): boolean => tx.meta != null && tx.meta.err == null;

/** Lamports the wallet gained in this transaction; 0n when it gained nothing or paid. */
export function solCredit(tx: TxView, wallet: string): bigint {
  if (!succeeded(tx)) return 0n;
  const meta = tx.meta!;
  const i = accountKeys(tx).indexOf(wallet);
  if (i < 0 || meta.preBalances[i] == null || meta.postBalances[i] == null) return 0n;
  const delta = BigInt(meta.postBalances[i]) - BigInt(meta.preBalances[i]);
  return delta > 0n ? delta : 0n;
}

export interface TokenTarget {
  wallet: string;
  /** The wallet's associated token account for `mint`; only this account counts. */
  ata: string;
  mint: string;
  /** Decimals payd's minor unit assumes (USDT: 6); a mint with other decimals never counts. */
  decimals: number;
}

/** Raw token units the wallet's ATA for the mint gained; a missing pre entry is 0 (ATA created in this tx). */
export function tokenCredit(tx: TxView, t: TokenTarget): bigint {
  if (!succeeded(tx)) return 0n;
  const keys = accountKeys(tx);
  const ours = (b: TokenBalanceView) => b.mint === t.mint && b.owner === t.wallet && keys[b.accountIndex] === t.ata;
  const post = (tx.meta!.postTokenBalances ?? []).find(ours);
  if (!post || post.uiTokenAmount.decimals !== t.decimals) return 0n;
  const pre = (tx.meta!.preTokenBalances ?? []).find((b) => b.accountIndex === post.accountIndex && b.mint === t.mint);
  const delta = rawAmount(post.uiTokenAmount.amount) - (pre ? rawAmount(pre.uiTokenAmount.amount) : 0n);
  return delta > 0n ? delta : 0n;
}

const rawAmount = (s: string): bigint => (/^\d+$/.test(s) ? BigInt(s) : 0n);

/**
 * Solana Pay appends the reference as a read-only, non-signer account key. Every such
 * key that is not a program is a candidate; the core checks them against intents.
 */
export function referenceCandidates(tx: TxView): string[] {
  const programs = new Set(tx.transaction.message.instructions.map((ix) => b58(ix.programId)));
  for (const inner of tx.meta?.innerInstructions ?? []) for (const ix of inner.instructions) programs.add(b58(ix.programId));
  const out: string[] = [];
  for (const k of tx.transaction.message.accountKeys) {
    const key = b58(k.pubkey);
    if (k.signer || k.writable || programs.has(key) || WELL_KNOWN_PROGRAMS.has(key) || key.startsWith('Sysvar')) continue;
    if (!out.includes(key)) out.push(key);
  }
  return out;
}

/** The fee payer: always the first account key. */
export const payerOf = (tx: TxView): string | undefined => {
  const first = tx.transaction.message.accountKeys[0];
  return first ? b58(first.pubkey) : undefined;
};

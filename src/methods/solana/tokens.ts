/**
 * What the Solana family can be paid in: native SOL, and one row per SPL token. A token is one
 * row of SPL_TOKENS: its method (descriptor, config section with the mint, source, checkout,
 * sandbox, pricing) follows from the row (method.ts), and nothing else in src/ names it.
 */

/** One asset a Solana source watches: the method it feeds and its decimals; `spl` for a token (its mint comes from the section). */
export interface SolanaAsset {
  /** The method id (the API's `currency`). */
  method: string;
  decimals: number;
  kind: 'native' | 'spl';
}

/** One SPL token payd accepts. */
export interface SplToken {
  /** The method id merchants send ("USDC_SOL"). */
  id: string;
  /** The unit shown on amounts and used for pricing ("USDC"). */
  unit: string;
  /** The mainnet mint: the default of the section's `mint`. */
  mint: string;
  /** The mint's decimals (on-chain, fixed for the mint). */
  decimals: number;
  /** The fiat a stablecoin is pegged to: priced 1:1 in it unless the operator turns the peg off. */
  peg?: string;
  /** Where `payd init` asks for it among the methods (ascending). */
  initOrder: number;
}

/** Native SOL: lamports to the wallet. */
export const SOL_ASSET: SolanaAsset = { method: 'SOL', decimals: 9, kind: 'native' };

/** The SPL tokens shipped, in the order the API document lists them. */
export const SPL_TOKENS: readonly SplToken[] = [
  { id: 'USDT_SOL', unit: 'USDT', mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6, peg: 'USD', initOrder: 40 },
  // Circle's USDC mint.
  { id: 'USDC_SOL', unit: 'USDC', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6, peg: 'USD', initOrder: 45 },
];

export const splAsset = (t: SplToken): SolanaAsset => ({ method: t.id, decimals: t.decimals, kind: 'spl' });

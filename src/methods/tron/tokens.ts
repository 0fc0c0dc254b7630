/**
 * The TRC20 tokens payd accepts on TRON: one row each. A token's method (descriptor, config
 * section with its contract, source, checkout, sandbox, pricing) follows from its row
 * (method.ts), and nothing else in src/ names it.
 */

/** What one TRON source feeds: the method id and the token's decimals. */
export interface TronAsset {
  method: string;
  decimals: number;
}

export interface Trc20Token {
  /** The method id merchants send ("USDT_TRC20"). */
  id: string;
  /** The unit shown on amounts and used for pricing ("USDT"). */
  unit: string;
  /** The mainnet contract: the default of the section's `contract`. */
  contract: string;
  /** The contract's `decimals()`. */
  decimals: number;
  /** The fiat a stablecoin is pegged to: priced 1:1 in it unless the operator turns the peg off. */
  peg?: string;
  /** Where `payd init` asks for it among the methods (ascending). */
  initOrder: number;
}

/** The TRC20 tokens shipped, in the order the API document lists them. */
export const TRC20_TOKENS: readonly Trc20Token[] = [{ id: 'USDT_TRC20', unit: 'USDT', contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6, peg: 'USD', initOrder: 20 }];

export const tronAsset = (t: Trc20Token): TronAsset => ({ method: t.id, decimals: t.decimals });

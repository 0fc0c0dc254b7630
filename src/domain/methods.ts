/** Payment methods and their money rules. Amounts inside payd are integer minor units. */
export const METHODS = ['UPI', 'USDT_TRC20', 'USDT_SOL', 'SOL'] as const;
export type Method = (typeof METHODS)[number];

export const isMethod = (v: unknown): v is Method => typeof v === 'string' && (METHODS as readonly string[]).includes(v);

export interface MethodRules {
  /** Decimal places of the minor unit: paise 2, USDT 6, lamports 9. */
  decimals: number;
  /** Default unique-amount step in minor units. */
  amountStep: bigint;
  /** Ticker shown to people. */
  unit: string;
}

export const METHOD_RULES: Record<Method, MethodRules> = {
  UPI: { decimals: 2, amountStep: 1n, unit: 'INR' }, // 0.01 INR
  USDT_TRC20: { decimals: 6, amountStep: 10_000n, unit: 'USDT' }, // 0.01 USDT
  USDT_SOL: { decimals: 6, amountStep: 10_000n, unit: 'USDT' }, // 0.01 USDT
  SOL: { decimals: 9, amountStep: 1_000n, unit: 'SOL' }, // 0.000001 SOL
};

export const DEFAULT_MAX_OFFSET_STEPS = 100;

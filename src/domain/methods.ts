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
/** methods.<M>.maxSurchargePercent's default, 1 %, in hundredths of a percent. */
export const DEFAULT_SURCHARGE_BASIS_POINTS = 100n;
/** methods.<M>.merchantSharePercent's default: no cap (one shop per receiver is the usual case). */
export const DEFAULT_MERCHANT_SHARE_PERCENT = 100;

/**
 * A transaction reference as the method's source records it, so one transfer typed by
 * hand in another spelling (`0xABC…`, `UTR 1234 5678 9012`) is still the same transfer.
 * TRON: lower-case hex without 0x; UPI: the UTR's digits; Solana: the base58 signature as is.
 * Returns null when nothing usable is left.
 */
export function normalizeTxRef(method: Method, raw: string): string | null {
  const t = raw.trim();
  let out: string;
  switch (method) {
    case 'USDT_TRC20': {
      // A row key (txid:from:value) keeps its base58 sender as is.
      const [txid, ...rest] = t.split(':');
      out = [txid.toLowerCase().replace(/^0x/, ''), ...rest].join(':');
      break;
    }
    case 'UPI':
      out = t.replace(/\D/g, '');
      break;
    default:
      out = t;
  }
  return out && out.length <= 200 ? out : null;
}

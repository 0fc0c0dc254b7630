/**
 * Payment methods as the pure core sees them: an id and its money rules. Which methods exist
 * is told by the method descriptors (methods/registry.ts); the core is handed their facts.
 * Amounts inside payd are integer minor units.
 */
export type Method = string;

export interface MethodRules {
  /** Decimal places of the minor unit: paise 2, USDT 6, lamports 9. */
  decimals: number;
  /** Default unique-amount step in minor units. */
  amountStep: bigint;
  /** Ticker shown to people. */
  unit: string;
  /**
   * The amount payers round to (a whole ₹1.00, 1 USDT, 1 SOL): no pay_amount is ever a multiple
   * of it, so a payer who rounds ₹499.37 down to ₹499.00 pays short of some intent, never
   * exactly another customer's (docs/api.md "Unique pay_amount"). null: the method
   * never matches by amount.
   */
  roundUnitMinor: bigint | null;
}

/** How a method spells the references of its transfers. */
export interface TxRefRules {
  /** The canonical spelling of a trimmed reference (default: as is). */
  normalize?: (trimmed: string) => string;
  /** What an operator types (`--tx must be a … of at most 200 characters`). */
  noun: string;
  /**
   * One transaction may carry several recorded rows, keyed `txid:…` (TRON: one per Transfer):
   * a bare transaction id names them, and the merchant sees the id before the first colon.
   */
  rowKeyed?: boolean;
}

export const DEFAULT_MAX_OFFSET_STEPS = 100;
/** methods.<M>.maxSurchargePercent's default, 1 %, in hundredths of a percent. */
export const DEFAULT_SURCHARGE_BASIS_POINTS = 100n;
/** methods.<M>.merchantSharePercent's default: no cap (one shop per receiver is the usual case). */
export const DEFAULT_MERCHANT_SHARE_PERCENT = 100;

/**
 * A transaction reference as the method's source records it, so one transfer typed by
 * hand in another spelling (`0xABC…`, `UTR 1234 5678 9012`) is still the same transfer.
 * Returns null when nothing usable is left.
 */
export function normalizeTxRef(rules: Pick<TxRefRules, 'normalize'>, raw: string): string | null {
  const t = raw.trim();
  const out = rules.normalize ? rules.normalize(t) : t;
  return out && out.length <= 200 ? out : null;
}

/** The transaction id a merchant sees for a recorded reference. */
export const txHashOf = (rules: Pick<TxRefRules, 'rowKeyed'>, txRef: string): string | undefined => (rules.rowKeyed ? txRef.split(':')[0] : undefined);

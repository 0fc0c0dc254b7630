import { parseDecimal } from './money.ts';

/**
 * What a merchant's method does with a payment that is not exactly right, per method
 * under `methods.<M>`: pure data, parsed once from the config.
 */
export interface PaymentPolicy {
  /** An exact payment after expires_at, while the amount is still reserved: settle (default) or hold. */
  latePayments: 'settle' | 'hold';
  /** How short an attributed payment may be and still settle; null: not at all (default). */
  underpaymentTolerance: Tolerance | null;
  /** How far below a pay_amount a short payment may be and still be attributed to it, minor units. */
  attributionWindowMinor: bigint;
  /**
   * The method's whole unit (₹1.00, 1 USDT), minor units; null: none. A whole payment may be a
   * payer's rounding of a pay_amount up or down: it is attributed short only when no other
   * reserved amount lies within one unit of it.
   */
  roundUnitMinor?: bigint | null;
}

/** Without configured policies: late exact payments settle, no tolerance, no short-payment window. */
export const DEFAULT_POLICY: PaymentPolicy = { latePayments: 'settle', underpaymentTolerance: null, attributionWindowMinor: 0n };

export type Tolerance = { kind: 'percent'; basisPoints: bigint } | { kind: 'absolute'; minor: bigint };

/** Held or credited, why: the merchant-facing vocabulary of a payment row's reason. */
export type PaymentReason = 'late' | 'underpaid' | 'overpaid' | 'canceled' | 'after_settlement';

/**
 * `"1%"` (up to two decimals of a percent) or an absolute amount in the method's unit (`"1.00"`).
 * Returns the error text for the config path on a bad value.
 */
export function parseTolerance(text: string, decimals: number): Tolerance | { error: string } {
  const t = text.trim();
  if (t.endsWith('%')) {
    const pct = parseDecimal(t.slice(0, -1).trim(), 2);
    if (!pct.ok || pct.minor <= 0n || pct.minor > 10_000n) return { error: 'expected a percentage above 0 and at most 100, like "1%"' };
    return { kind: 'percent', basisPoints: pct.minor };
  }
  const abs = parseDecimal(t, decimals);
  if (!abs.ok || abs.minor <= 0n) return { error: `expected "1%" or an amount above 0 with at most ${decimals} decimals, like "1.00"` };
  return { kind: 'absolute', minor: abs.minor };
}

/** Whether a payment `shortByMinor` below `payAmountMinor` is inside the tolerance (never for 0 tolerance). */
export function withinTolerance(shortByMinor: bigint, payAmountMinor: bigint, t: Tolerance | null): boolean {
  if (!t || shortByMinor <= 0n) return shortByMinor <= 0n;
  // Percent of pay_amount, rounded down to a whole minor unit: never more lenient than asked.
  const allowed = t.kind === 'absolute' ? t.minor : (payAmountMinor * t.basisPoints) / 10_000n;
  return shortByMinor <= allowed;
}

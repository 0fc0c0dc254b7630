import { formatMinor, formatMinorFixed } from '../../domain/money.ts';

/** Indian digit grouping of a whole number: 1499 → "1,499", 1234567 → "12,34,567". */
export function groupIndian(int: string): string {
  if (int.length <= 3) return int;
  const head = int.slice(0, -3);
  return `${head.replace(/\B(?=(\d{2})+$)/g, ',')},${int.slice(-3)}`;
}

export interface ShownAmount {
  /** What a person reads: "₹1,499.00", "12.50". */
  text: string;
  /** What a copy button puts on the clipboard for an app's amount field: "1499.00", "12.5". */
  plain: string;
}

/**
 * Fiat (rupees) with its sign (₹), Indian grouping and paise; crypto with every significant decimal
 * (never rounded: the exact amount is how the payment is matched), at least two.
 */
export function shownAmount(method: { decimals: number; fiatSign?: string }, minor: bigint): ShownAmount {
  const { decimals, fiatSign } = method;
  if (fiatSign !== undefined) {
    const fixed = formatMinorFixed(minor, decimals);
    const [int, frac] = fixed.split('.');
    return { text: `${fiatSign}${groupIndian(int)}.${frac}`, plain: fixed };
  }
  const exact = formatMinor(BigInt(minor), decimals);
  const [int, frac = ''] = exact.split('.');
  const text = `${int}.${frac.padEnd(2, '0')}`;
  return { text, plain: exact };
}

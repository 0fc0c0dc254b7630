import { formatMinor, formatMinorFixed } from '../../domain/money.ts';
import type { Intent } from '../../domain/intent.ts';
import { FIATS, type Fiat } from '../../domain/rates.ts';

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

/** A fiat price for people: ₹ with Indian grouping, $ and € with thousands commas; always two decimals. */
export function shownPrice(amount: string, currency: Fiat): string {
  const [int, frac = ''] = amount.split('.');
  const grouped = currency === 'INR' ? groupIndian(int) : int.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${FIATS[currency].sign}${grouped}.${frac.padEnd(FIATS[currency].decimals, '0')}`;
}

/**
 * The quote line of a priced intent: "₹1,999.00 = 23.87 USDT at 83.75 ₹/USDT, valid until" and
 * the time (the converted amount, before any unique offset). The server writes the time in UTC,
 * HH:MM; the page's script shows it in the payer's own time zone. Null without a quote or for
 * the identity (UPI priced in INR says nothing new).
 */
export function quoteLine(intent: Intent, method: { decimals: number; fiatSign?: string; unit: string }): { text: string; until: string; validUntil: string } | null {
  const q = intent.pricing;
  if (!q || q.source === 'identity') return null;
  const shown = shownAmount(method, intent.amountMinor).text;
  const amount = method.fiatSign !== undefined ? shown : `${shown} ${method.unit}`;
  const validUntil = new Date(q.validUntil).toISOString();
  return { text: `${shownPrice(q.priceAmount, q.priceCurrency)} = ${amount} at ${q.rate} ${FIATS[q.priceCurrency].sign}/${method.unit}, valid until`, until: `${validUntil.slice(11, 16)} UTC`, validUntil };
}

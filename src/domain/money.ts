/**
 * Decimal text <-> integer minor units (a token's base units: paise, sun, lamports, wei). The
 * only place amounts change representation; no float arithmetic ever touches money. Inside
 * payd an amount is a bigint, whatever the method's decimals (up to MAX_DECIMALS).
 */

/** The most decimal places a method may have (18: ERC-20 tokens such as USDT on BNB Smart Chain). */
export const MAX_DECIMALS = 18;

/**
 * The one range rule for every amount payd keeps (prices, pay amounts, payments, offsets): a
 * whole number of base units from 0 to MAX_MINOR. 38 digits is 10^20 whole tokens at 18
 * decimals, and still leaves the stores (40 digits) room for the unique-amount offsets above it.
 */
export const MAX_MINOR = 10n ** 38n - 1n;

export const isStorableMinor = (minor: bigint): boolean => minor >= 0n && minor <= MAX_MINOR;

/** Shortest exact decimal text of a JSON number (no exponent). */
export function numberToDecimalText(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError('not a finite number');
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, int, frac = '', expText] = m;
  const exp = Number(expText);
  const digits = int + frac;
  const point = int.length + exp;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

export type ParseResult = { ok: true; minor: bigint } | { ok: false; reason: 'format' | 'precision' };

/** Parses "1,02,345.67"-free plain decimal text ("100", "100.5") into minor units. */
export function parseDecimal(text: string, decimals: number): ParseResult {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return { ok: false, reason: 'format' };
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) return { ok: false, reason: 'precision' };
  return { ok: true, minor: BigInt(m[1] + frac.padEnd(decimals, '0')) };
}

/** Minor units -> plain decimal text with trailing zeros trimmed ("100.5", "0.000001"). */
export function formatMinor(minor: bigint, decimals: number): string {
  const neg = minor < 0n;
  const digits = (neg ? -minor : minor).toString().padStart(decimals + 1, '0');
  const int = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${neg ? '-' : ''}${int}${frac ? '.' + frac : ''}`;
}

/** Minor units -> decimal text with every decimal place kept ("100.50"); for URIs and people. */
export function formatMinorFixed(minor: bigint, decimals: number): string {
  const digits = minor.toString().padStart(decimals + 1, '0');
  if (decimals === 0) return digits;
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * The amount's decimal text when a JSON number cannot carry it: a reader that parses JSON
 * numbers as IEEE-754 doubles (JavaScript, most JSON libraries) would get another value.
 * undefined when the number is exact. Up to 15 significant digits always survive a double,
 * so the common amounts cost a length check.
 */
export function inexactAsNumber(text: string): string | undefined {
  if (text.length <= 15 || text.replace('.', '').replace(/^0+/, '').length <= 15) return undefined;
  return numberToDecimalText(Number(text)) === text ? undefined : text;
}

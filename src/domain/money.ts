/**
 * Decimal text <-> integer minor units. The only place amounts change representation;
 * no float arithmetic ever touches money.
 */

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

/** SQLite stores integers; this guards the bigint <-> number boundary. */
export function minorToDb(minor: bigint): number {
  const n = Number(minor);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${minor} exceeds the storable range`);
  return n;
}

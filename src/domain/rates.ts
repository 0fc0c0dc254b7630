import { numberToDecimalText } from './money.ts';

/**
 * Exchange rates as exact decimals: a rate is a bigint scaled by 10^18 (never a float), and
 * always reads "units of the price currency per 1 unit of the method's currency"
 * (83.75 = 83.75 ₹ per USDT).
 */
export const RATE_DECIMALS = 18;
const SCALE = 10n ** BigInt(RATE_DECIMALS);
export const RATE_ONE = SCALE;

/** The public rate sources payd can ask (src/pricing/sources/). */
export const RATE_SOURCES = ['coindcx', 'wazirx', 'kraken', 'coinbase', 'binance', 'frankfurter', 'coingecko'] as const;
export type RateSourceName = (typeof RATE_SOURCES)[number];

/** Fiat currencies a price may be given in, with their minor-unit decimals and the sign shown to people. */
export const FIATS = { INR: { decimals: 2, sign: '₹' }, USD: { decimals: 2, sign: '$' }, EUR: { decimals: 2, sign: '€' } } as const;
export type Fiat = keyof typeof FIATS;
export const FIAT_CODES = Object.keys(FIATS) as Fiat[];
export const isFiat = (v: unknown): v is Fiat => typeof v === 'string' && Object.hasOwn(FIATS, v);

/**
 * The range a rate can sensibly take for the currencies payd prices (₹ per SOL is about 10^4,
 * $ per ₹ about 10^-2): anything outside is a broken or lying source, not a market.
 */
const MIN_RATE = 10n ** BigInt(RATE_DECIMALS - 9); // 0.000000001
const MAX_RATE = 10n ** 9n * SCALE; // 1,000,000,000

/**
 * A source's rate (decimal string, or a JSON number as its shortest exact text) as a scaled
 * bigint; null for anything that is not a plain positive decimal (zero, negative, "NaN", "",
 * exponents, null) or lies outside 10^-9 … 10^9: such an answer is a source failure, never a rate.
 */
export function parseRate(raw: unknown): bigint | null {
  let text: string;
  if (typeof raw === 'string') text = raw.trim();
  else if (typeof raw === 'number' && Number.isFinite(raw)) text = numberToDecimalText(raw);
  else return null;
  const m = /^(\d{1,30})(?:\.(\d{1,40}))?$/.exec(text);
  if (!m) return null;
  const frac = m[2] ?? '';
  const r = BigInt(m[1] + frac.slice(0, RATE_DECIMALS).padEnd(RATE_DECIMALS, '0'));
  // Digits past the 18th are dropped (no source sends that many), like derived rates: down.
  return r >= MIN_RATE && r < MAX_RATE ? r : null;
}

/** A rate as plain decimal text, trailing zeros trimmed ("83.75", "0.011947"). */
export function formatRate(r: bigint): string {
  const int = r / SCALE;
  const frac = (r % SCALE).toString().padStart(RATE_DECIMALS, '0').replace(/0+$/, '');
  return frac ? `${int}.${frac}` : `${int}`;
}

/**
 * A rate as an exact fraction num/den: inverse pairs and cross rates stay exact until the one
 * rounding convertPrice does (a cached rate r is r/10^18).
 */
export interface Ratio {
  num: bigint;
  den: bigint;
}
export const ratio = (r: bigint): Ratio => ({ num: r, den: SCALE });
export const multiplyRates = (a: Ratio, b: Ratio): Ratio => ({ num: a.num * b.num, den: a.den * b.den });
export const invertRate = (r: Ratio): Ratio => ({ num: r.den, den: r.num });
/** The fraction as a scaled rate for showing and storing (rounded down at 18 decimals). */
export const ratioToRate = (r: Ratio): bigint => (r.num * SCALE) / r.den;

/** The median of the values (even count: the mean of the middle two). */
export function median(values: readonly bigint[]): bigint {
  const s = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2n;
}

/** Whether `value` is within `maxSpreadPercent` % of `reference` (exact: percent taken in hundredths). */
export function withinSpread(value: bigint, reference: bigint, maxSpreadPercent: number): boolean {
  const bp = BigInt(Math.round(maxSpreadPercent * 100));
  const diff = value > reference ? value - reference : reference - value;
  return diff * 10_000n <= reference * bp;
}

/**
 * Of the sources' readings for one pair, which to trust: with two or more, a reading further
 * than maxSpreadPercent from the median of all of them is an outlier (a source gone wild, a
 * wrong market); with one, there is nothing to compare it with and it stands.
 */
export function screenOutliers<T extends { rate: bigint }>(readings: readonly T[], maxSpreadPercent: number): { kept: T[]; outliers: T[]; median: bigint | null } {
  if (readings.length < 2) return { kept: [...readings], outliers: [], median: readings[0]?.rate ?? null };
  const m = median(readings.map((r) => r.rate));
  const kept: T[] = [];
  const outliers: T[] = [];
  for (const r of readings) (withinSpread(r.rate, m, maxSpreadPercent) ? kept : outliers).push(r);
  return { kept, outliers, median: m };
}

/** One source's fresh, trusted reading of a pair, as the rate cache offers it. */
export interface SourceRate {
  source: string;
  rate: bigint;
  /** When it was fetched (or the source's own time, if older), ms. */
  at: number;
}

/**
 * The pair's rate from its fresh, trusted readings: the median of the ones that agree (within
 * maxSpreadPercent of the median of all), when at least `required` agree; undefined otherwise,
 * so one voice alone never prices a pair its operator gave several sources. Named after the
 * middle source (odd count: its own reading) or the middle two joined by "+" (their mean).
 */
export function agreedRate(readings: readonly SourceRate[], required: number, maxSpreadPercent: number): PairRate | undefined {
  const { kept } = screenOutliers(readings, maxSpreadPercent);
  if (kept.length < Math.max(1, required)) return undefined;
  const sorted = [...kept].sort((a, b) => (a.rate < b.rate ? -1 : a.rate > b.rate ? 1 : 0));
  const mid = sorted.length >> 1;
  const middle = sorted.length % 2 ? [sorted[mid]] : [sorted[mid - 1], sorted[mid]];
  const order = (s: SourceRate) => readings.indexOf(s);
  const source = middle.sort((a, b) => order(a) - order(b)).map((s) => s.source).join('+');
  return { rate: median(kept.map((k) => k.rate)), source, at: Math.min(...kept.map((k) => k.at)) };
}

/**
 * Of one refresh's trusted readings for a pair, those that moved further than maxChangePercent
 * from the pair's last accepted rate with no other reading of the refresh within
 * maxSpreadPercent of them: held back until a second source reports the same move.
 */
export function unconfirmedJumps<T extends { rate: bigint }>(readings: readonly T[], accepted: bigint | null, maxChangePercent: number, maxSpreadPercent: number): T[] {
  if (accepted === null) return [];
  return readings.filter((r) => !withinSpread(r.rate, accepted, maxChangePercent) && !readings.some((o) => o !== r && withinSpread(o.rate, r.rate, maxSpreadPercent)));
}

/**
 * A price converted to the method's minor units at `rate` (price currency per method unit),
 * rounded UP to the method's amount step, so the merchant never gets less than the price at
 * the quoted rate: minor = ceil(ceil(price × 10^decimals / rate) / step) × step.
 * `priceMinor` is in the price currency's minor units (`priceDecimals` places).
 */
export function convertPrice(priceMinor: bigint, priceDecimals: number, rate: Ratio, methodDecimals: number, stepMinor: bigint): bigint {
  const num = priceMinor * rate.den * 10n ** BigInt(methodDecimals);
  const den = rate.num * 10n ** BigInt(priceDecimals);
  const raw = (num + den - 1n) / den;
  return ((raw + stepMinor - 1n) / stepMinor) * stepMinor;
}

/** One pair's rate as the cache holds it. */
export interface PairRate {
  rate: bigint;
  source: string;
  /** When it was fetched, ms. */
  at: number;
}

/** The rate a price converts at: exact, with where it came from. */
export interface QuotedRate {
  rate: Ratio;
  source: string;
  /** When it was fetched, ms. */
  at: number;
}

/**
 * The rate for paying a price in `fiat` with `unit` (the method's currency), from the fresh
 * rates `fresh(pair)` offers ("USDT/INR"): the identity for the same currency, a stablecoin's peg
 * (`pegs`: unit → the fiat it is quoted 1:1 in, "USDC" → "USD"), the direct pair, its inverse, or a cross rate through
 * USD (e.g. SOL/INR = SOL/USD × USD/INR, the fiat leg from ECB rates). Undefined: no fresh rate.
 * A pair the operator configured (`fresh` answers 'stale' while it has no fresh rate) is never
 * replaced by its inverse or a cross rate: those are other prices (USDT/INR on Indian books
 * carries a premium over USD/INR), so its outage refuses creates instead of re-pricing them.
 */
export function resolveRate(unit: string, fiat: Fiat, fresh: (pair: string) => PairRate | 'stale' | undefined, pegs: Readonly<Record<string, string>>): QuotedRate | undefined {
  const one: Ratio = { num: 1n, den: 1n };
  const leg = (base: string, quote: string): QuotedRate | 'stale' | undefined => {
    if (base === quote) return { rate: one, source: 'identity', at: Number.POSITIVE_INFINITY };
    if (Object.hasOwn(pegs, base) && pegs[base] === quote) return { rate: one, source: 'peg', at: Number.POSITIVE_INFINITY };
    const direct = fresh(`${base}/${quote}`);
    if (direct) return direct === 'stale' ? direct : { ...direct, rate: ratio(direct.rate) };
    const inverse = fresh(`${quote}/${base}`);
    if (inverse) return inverse === 'stale' ? inverse : { ...inverse, rate: invertRate(ratio(inverse.rate)) };
    return undefined;
  };
  const direct = leg(unit, fiat);
  if (direct === 'stale') return undefined;
  if (direct) return direct;
  if (unit === 'USD' || fiat === 'USD') return undefined;
  const a = leg(unit, 'USD');
  const b = a && a !== 'stale' ? leg('USD', fiat) : undefined;
  if (!a || a === 'stale' || !b || b === 'stale') return undefined;
  return { rate: multiplyRates(a.rate, b.rate), source: [a.source, b.source].filter((s) => s !== 'identity').join('×'), at: Math.min(a.at, b.at) };
}

/**
 * The configured pairs a price in `fiat` paid in `unit` converts through (resolveRate's route
 * with every configured pair fresh): none for the identity or a peg, or when no route exists.
 */
export function pairsUsed(unit: string, fiat: Fiat, configured: ReadonlySet<string>, pegs: Readonly<Record<string, string>>): string[] {
  const used: string[] = [];
  const stand: PairRate = { rate: SCALE, source: 'any', at: 0 };
  const route = resolveRate(unit, fiat, (pair) => (configured.has(pair) ? (used.push(pair), stand) : undefined), pegs);
  return route ? used : [];
}

/**
 * The pair to configure so that a price in `fiat` can be paid in `unit`, or null when some way
 * to a rate (identity, peg, pair, inverse, cross through USD) is configured: a missing pair is
 * the operator's configuration to fix, never an outage to wait out.
 */
export function missingPair(unit: string, fiat: Fiat, configured: (pair: string) => boolean, pegs: Readonly<Record<string, string>>): string | null {
  const any: PairRate = { rate: RATE_ONE, source: '', at: 0 };
  return resolveRate(unit, fiat, (pair) => (configured(pair) ? any : undefined), pegs) ? null : `${unit}/${fiat}`;
}

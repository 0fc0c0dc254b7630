import { sql, type Expression, type RawBuilder } from 'kysely';
import { MAX_MINOR } from '../domain/money.ts';
import { isPostgres, type Db } from './open.ts';

/**
 * How the stores keep amounts (base units of any size, exactly): PostgreSQL as NUMERIC(40,0),
 * SQLite as decimal text of a fixed 40 digits, zero-padded, because SQLite's integers stop at
 * 2^63 (9.2 tokens of 18 decimals) and its NUMERIC falls back to floats beyond. Fixed width
 * keeps text order equal to number order, so the range reads (candidates, the unique-amount
 * window) and the indexes work unchanged; PostgreSQL reads the same text as its number. Every
 * amount bound to a query goes through amountToDb, every amount read through amountFromDb.
 */
export const AMOUNT_DIGITS = 40;

/** Headroom above MAX_MINOR for the unique-amount offsets, still within AMOUNT_DIGITS. */
const STORABLE = 10n ** BigInt(AMOUNT_DIGITS) - 1n;

export function amountToDb(minor: bigint): string {
  if (minor < 0n || minor > STORABLE) throw new RangeError(`amount ${minor} is outside the storable range (0 to ${MAX_MINOR} and offsets)`);
  return minor.toString().padStart(AMOUNT_DIGITS, '0');
}

/** A stored amount (SQLite's padded text, PostgreSQL's NUMERIC text) as base units. */
export const amountFromDb = (stored: string | number | bigint): bigint => BigInt(stored);

/**
 * The exact sum of an amount expression, as text for amountFromSum: PostgreSQL adds NUMERIC
 * exactly; SQLite's sum() would overflow 64 bits (or turn the text into floats), so it adds the
 * padded digits in five columns of at most 9 digits each (exact for 9·10^9 rows), which
 * amountFromSum carries together.
 */
export function amountSum(db: Db, amount: Expression<unknown>): RawBuilder<string> {
  if (isPostgres(db)) return sql<string>`coalesce(sum(${amount}), 0)::text`;
  const parts = SUM_PARTS.map(([from, length]) => sql`coalesce(sum(cast(substr(${amount}, ${sql.lit(from)}, ${sql.lit(length)}) as integer)), 0)`);
  return sql<string>`(${sql.join(parts, sql` || ',' || `)})`;
}

/** [start, length] of each column of digits, most significant first (4 + 4 × 9 = AMOUNT_DIGITS). */
const SUM_PARTS = [
  [1, 4],
  [5, 9],
  [14, 9],
  [23, 9],
  [32, 9],
] as const;

/** An amountSum's text as base units. */
export function amountFromSum(text: string | null | undefined): bigint {
  if (text === null || text === undefined) return 0n;
  if (!text.includes(',')) return BigInt(text);
  return text.split(',').reduce((total, part, i) => total * (i === 0 ? 1n : 10n ** 9n) + BigInt(part), 0n);
}

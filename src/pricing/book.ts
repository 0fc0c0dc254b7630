import { writeTx, type Db } from '../db/open.ts';
import type { RatesTable } from '../db/schema.ts';
import { agreedRate, formatRate, missingPair, parseRate, resolveRate, type Fiat, type PairRate, type QuotedRate, type SourceRate } from '../domain/rates.ts';
import type { Clock } from '../domain/ports.ts';
import type { RateReading } from './source.ts';

/** One source's outcome for one pair in a refresh. */
export type RateOutcome = { pair: string; source: string } & ({ reading: RateReading; outlier: boolean } | { error: string });

/** A pair as `payd rates`, `payd doctor` and /readyz show it. */
export interface PairStatus {
  pair: string;
  /** The rate a create would use now, and its source; null: none fresh. */
  rate: string | null;
  source: string | null;
  /** Age of that rate, seconds (null: none). */
  ageSeconds: number | null;
  sources: { source: string; rate: string | null; ageSeconds: number | null; outlier: boolean; failures: number; error: string | null }[];
}

export interface RateBookOptions {
  db: Db;
  clock: Clock;
  /** "USDT/INR" → its sources (pricing.pairs). */
  pairs: Record<string, readonly string[]>;
  maxAgeSeconds: number;
  /** Readings further than this from the median of the pair's fresh ones do not count. */
  maxSpreadPercent: number;
  /**
   * Per source, how old its own timestamp may be on a healthy source, seconds, when that is more
   * than maxAgeSeconds (a daily publication); default maxAgeSeconds.
   */
  stampSlackSeconds?: Partial<Record<string, number>>;
  /** Stablecoins quoted 1:1: unit → its fiat ("USDT" → "USD"), the pegs left on. */
  pegs: Readonly<Record<string, string>>;
}

/** Rows are read again at most this often per process: creates never wait on more than a cached read. */
const SNAPSHOT_MS = 1000;

/**
 * The rate cache (the `rates` table): written by the worker leader after each refresh, read
 * by every process. A source's reading counts while it was fetched within pricing.maxAgeSeconds,
 * its own timestamp (when it sends one) is that recent too (a frozen ticker answers, but not
 * freshly), and it is not marked an outlier. The pair's rate is the median of the counting
 * readings that agree, and needs two of them unless the pair is configured with one source.
 */
export function createRateBook(options: RateBookOptions) {
  const maxAgeMs = options.maxAgeSeconds * 1000;
  let snapshot: { at: number; rows: RatesTable[] } | null = null;
  let loading: Promise<RatesTable[]> | null = null;

  async function rows(): Promise<RatesTable[]> {
    const now = options.clock.now();
    if (snapshot && now - snapshot.at < SNAPSHOT_MS && now >= snapshot.at) return snapshot.rows;
    loading ??= options.db
      .selectFrom('rates')
      .selectAll()
      .execute()
      .then((r) => {
        snapshot = { at: now, rows: r.map((x) => ({ ...x, fetched_at: x.fetched_at === null ? null : Number(x.fetched_at), checked_at: Number(x.checked_at), source_at: x.source_at === null ? null : Number(x.source_at) })) };
        return snapshot.rows;
      })
      .finally(() => (loading = null));
    return loading;
  }

  /** When a row's reading is from: fetched then, or earlier when the source's own time says so. */
  const readingAt = (row: RatesTable): number => (row.source_at !== null && row.source_at < row.fetched_at! ? row.source_at : row.fetched_at!);

  /** Whether a row's reading is fresh: fetched recently, and dated recently by its source. */
  function isFresh(row: RatesTable, now: number): boolean {
    if (row.fetched_at === null || now - row.fetched_at > maxAgeMs) return false;
    const slackMs = Math.max(maxAgeMs, (options.stampSlackSeconds?.[row.source] ?? 0) * 1000);
    return row.source_at === null || now - row.source_at <= slackMs;
  }

  /** The usable rate of `pair` now: the median of its fresh, trusted readings that agree, enough of them. */
  function freshFrom(all: RatesTable[], now: number, pair: string): PairRate | undefined {
    const configured = options.pairs[pair] ?? [];
    const readings: SourceRate[] = [];
    for (const source of configured) {
      const row = all.find((r) => r.pair === pair && r.source === source);
      if (!row || row.rate === null || row.outlier || !isFresh(row, now)) continue;
      const rate = parseRate(row.rate);
      if (rate !== null) readings.push({ source, rate, at: readingAt(row) });
    }
    // One source is trusted alone only where the operator listed just that one.
    return agreedRate(readings, Math.min(2, configured.length), options.maxSpreadPercent);
  }

  return {
    /** The rate to convert a `fiat` price into `unit` (the method's currency) now; undefined: none fresh. */
    async quote(unit: string, fiat: Fiat): Promise<QuotedRate | undefined> {
      // The identity and the peg need no rows.
      const direct = resolveRate(unit, fiat, () => undefined, options.pegs);
      if (direct) return direct;
      const all = await rows();
      const now = options.clock.now();
      return resolveRate(unit, fiat, (pair) => freshFrom(all, now, pair) ?? (options.pairs[pair] ? 'stale' : undefined), options.pegs);
    },

    /** The pair to add to pricing.pairs before `fiat` prices can be paid in `unit`; null: one is configured. */
    unconfigured(unit: string, fiat: Fiat): string | null {
      return missingPair(unit, fiat, (pair) => Object.hasOwn(options.pairs, pair), options.pegs);
    },

    /** The rate the pair is quoted at now (the last accepted one while it is fresh); null: none. */
    async accepted(pair: string): Promise<bigint | null> {
      return freshFrom(await rows(), options.clock.now(), pair)?.rate ?? null;
    },

    /** Writes one refresh's outcomes in one transaction. A failure keeps the previous good rate (until it is too old). */
    async record(outcomes: readonly RateOutcome[]): Promise<void> {
      const now = options.clock.now();
      await writeTx(options.db, async (tx) => {
        for (const x of outcomes) {
          const key = { pair: x.pair, source: x.source };
          if ('reading' in x) {
            const ok = { rate: formatRate(x.reading.rate), fetched_at: now, source_at: x.reading.sourceAt ?? null, outlier: x.outlier ? 1 : 0, checked_at: now, error: null, failures: 0 };
            await tx.insertInto('rates').values({ ...key, ...ok }).onConflict((oc) => oc.columns(['pair', 'source']).doUpdateSet(ok)).execute();
          } else {
            const error = x.error.slice(0, 300);
            await tx
              .insertInto('rates')
              .values({ ...key, rate: null, fetched_at: null, source_at: null, outlier: 0, checked_at: now, error, failures: 1 })
              .onConflict((oc) => oc.columns(['pair', 'source']).doUpdateSet((eb) => ({ checked_at: now, error, failures: eb('rates.failures', '+', 1) })))
              .execute();
          }
        }
      });
      snapshot = null;
    },

    /** Every configured pair with the rate a create would use and each source's state. */
    async status(): Promise<PairStatus[]> {
      const all = await rows();
      const now = options.clock.now();
      const age = (at: number | null) => (at === null ? null : Math.max(0, Math.round((now - at) / 1000)));
      return Object.entries(options.pairs).map(([pair, sources]) => {
        const used = freshFrom(all, now, pair);
        return {
          pair,
          rate: used ? formatRate(used.rate) : null,
          source: used?.source ?? null,
          ageSeconds: used ? age(used.at) : null,
          sources: sources.map((source) => {
            const row = all.find((r) => r.pair === pair && r.source === source);
            return { source, rate: row?.rate ?? null, ageSeconds: age(row && row.fetched_at !== null ? readingAt(row) : null), outlier: row?.outlier === 1, failures: row?.failures ?? 0, error: row?.error ?? null };
          }),
        };
      });
    },
  };
}

export type RateBook = ReturnType<typeof createRateBook>;

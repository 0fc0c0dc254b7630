import { screenOutliers, formatRate, unconfirmedJumps } from '../domain/rates.ts';
import type { Clock, Logger } from '../domain/ports.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type { RateBook, RateOutcome } from './book.ts';
import type { RateReading, RateSource } from './source.ts';
import { RateSourceError } from './source.ts';
import { networkWords } from '../domain/errors.ts';

export interface RefresherOptions {
  book: Pick<RateBook, 'record' | 'accepted'>;
  /** By name: the sources some pair lists. */
  sources: ReadonlyMap<string, RateSource>;
  pairs: Record<string, readonly string[]>;
  maxSpreadPercent: number;
  /** A reading this far from the pair's last accepted rate waits for a second source to agree. */
  maxChangePercent: number;
  clock: Clock;
  log: Logger;
  /** One request's wall-clock limit, ms. */
  timeoutMs?: number;
}

/**
 * The worker leader's rate refresh: every source of every pair asked once per round, in
 * parallel, whatever the API traffic (creates only read the cache). A source that answered
 * 429/418 with Retry-After is not asked again before that time. Readings too far from the
 * pair's median, and jumps too far from the pair's last accepted rate that no other source of
 * the same refresh confirms, are stored as outliers (not used) and logged.
 */
export function createRateRefresher(options: RefresherOptions) {
  const blockedUntil = new Map<string, number>();
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function ask(source: RateSource | undefined, name: string, pair: string, signal: AbortSignal): Promise<RateReading | { error: string }> {
    if (!source) return { error: `unknown source ${name}` };
    if (!source.supports(pair)) return { error: `${name} does not quote ${pair}` };
    const until = blockedUntil.get(name) ?? 0;
    if (options.clock.now() < until) return { error: `rate limited: not asked before ${new Date(until).toISOString()}` };
    try {
      return await source.fetch(pair, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
    } catch (err) {
      if (err instanceof RateSourceError && err.retryAfter) blockedUntil.set(name, options.clock.now() + err.retryAfter * 1000);
      if (err instanceof RateSourceError) return { error: err.message };
      // "fetch failed" alone says nothing: the cause (a name that does not resolve, a refused connection) in words.
      const cause = (err as { cause?: { message?: unknown; code?: unknown } }).cause;
      const text = `${describeError(err)}${cause && typeof cause.message === 'string' && !describeError(err).includes(cause.message) ? `: ${cause.message}` : ''}${cause && typeof cause.code === 'string' ? ` (${cause.code})` : ''}`;
      const words = networkWords(text);
      return { error: words ? `${words}: ${text.slice(0, 120)}` : text };
    }
  }

  async function refreshOnce(signal: AbortSignal): Promise<RateOutcome[]> {
    const asked = Object.entries(options.pairs).flatMap(([pair, names]) => names.map(async (name) => ({ pair, source: name, answer: await ask(options.sources.get(name), name, pair, signal) })));
    const answers = await Promise.all(asked);
    const outcomes: RateOutcome[] = [];
    for (const pair of Object.keys(options.pairs)) {
      const mine = answers.filter((a) => a.pair === pair);
      const good = mine.flatMap((a) => ('rate' in a.answer ? [{ source: a.source, rate: a.answer.rate, reading: a.answer }] : []));
      const { kept, outliers, median } = screenOutliers(good, options.maxSpreadPercent);
      const accepted = await options.book.accepted(pair);
      const jumps = unconfirmedJumps(kept, accepted, options.maxChangePercent, options.maxSpreadPercent);
      for (const a of mine) {
        if ('error' in a.answer) {
          options.log.warn('rate source failed', { pair, source: a.source, error: a.answer.error });
          outcomes.push({ pair, source: a.source, error: a.answer.error });
          continue;
        }
        const jump = jumps.some((x) => x.source === a.source);
        if (jump) options.log.warn('rate held back: moved too far since the last accepted rate, and no other source agrees', { pair, source: a.source, rate: formatRate(a.answer.rate), accepted: accepted === null ? null : formatRate(accepted), max_change_percent: options.maxChangePercent });
        const outlier = jump || outliers.some((x) => x.source === a.source);
        if (outlier && !jump) options.log.warn('rate ignored: too far from the other sources', { pair, source: a.source, rate: formatRate(a.answer.rate), median: median === null ? null : formatRate(median), max_spread_percent: options.maxSpreadPercent });
        outcomes.push({ pair, source: a.source, reading: a.answer, outlier });
      }
    }
    if (!signal.aborted) await options.book.record(outcomes);
    return outcomes;
  }

  return {
    refreshOnce,
    /** Refreshes every `intervalMs` until `signal` aborts (the leader steps down or the app stops). */
    async run(signal: AbortSignal, intervalMs: number): Promise<void> {
      while (!signal.aborted) {
        try {
          await refreshOnce(signal);
        } catch (err) {
          if (!signal.aborted) options.log.warn('rate refresh failed', { error: describeError(err) });
        }
        await delay(intervalMs, undefined, { signal }).catch(() => {});
      }
    },
  };
}

const describeError = (err: unknown): string => (err instanceof Error ? err.message : String(err));

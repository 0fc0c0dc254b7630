import type { Config } from '../config/read.ts';
import type { Db } from '../db/open.ts';
import type { Clock, Logger } from '../domain/ports.ts';
import type { RateSourceName } from '../domain/rates.ts';
import { createRateBook } from './book.ts';
import { createRateRefresher } from './refresh.ts';
import { createSimulatedRateBook } from './simulated.ts';
import type { FetchFn, RateSource } from './source.ts';
import { SOURCE_FACTORIES } from './sources/index.ts';

/**
 * Fiat pricing from `pricing` in the config: the rate book every process reads, and (when some
 * pair lists sources) the refresher the worker leader runs. Nothing is fetched at build time.
 * `d.pegs`: the stablecoins the payment methods declare (unit → fiat); the operator's
 * `pricing.pegs` turns any of them off. `d.simulated` (the sandbox only): fixed, documented
 * rates instead of the configured sources, so a price can be tried before any source is set up.
 */
export function createPricing(c: Config['pricing'], d: { db: Db; clock: Clock; log: Logger; fetch?: FetchFn; pegs?: Readonly<Record<string, string>>; simulated?: boolean }) {
  const stampSlackSeconds = Object.fromEntries(Object.entries(SOURCE_FACTORIES).map(([name, f]) => [name, f.stampSlackSeconds]));
  const pegs = Object.fromEntries(Object.entries(d.pegs ?? {}).filter(([unit]) => c.pegs[unit] !== false));
  if (d.simulated) return { book: createSimulatedRateBook({ clock: d.clock, pegs }), refresher: null };
  const book = createRateBook({ db: d.db, clock: d.clock, pairs: c.pairs, maxAgeSeconds: c.maxAgeSeconds, maxSpreadPercent: c.maxSpreadPercent, stampSlackSeconds, pegs });
  const named = new Set(Object.values(c.pairs).flat() as RateSourceName[]);
  const sources = new Map<string, RateSource>();
  for (const name of named) {
    const s = c.sources[name];
    const key = s?.apiKey;
    sources.set(name, SOURCE_FACTORIES[name].build({ fetch: d.fetch ?? fetch, baseUrl: (s?.baseUrl ?? SOURCE_FACTORIES[name].baseUrl).replace(/\/+$/, ''), apiKey: key ? () => key.reveal() : undefined }));
  }
  const refresher = sources.size > 0 ? createRateRefresher({ book, sources, pairs: c.pairs, maxSpreadPercent: c.maxSpreadPercent, maxChangePercent: c.maxChangePercent, clock: d.clock, log: d.log }) : null;
  return { book, refresher };
}

export type Pricing = ReturnType<typeof createPricing>;


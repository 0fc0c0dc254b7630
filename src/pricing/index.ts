import type { Config } from '../config/read.ts';
import type { Db } from '../db/open.ts';
import type { Clock, Logger } from '../domain/ports.ts';
import type { RateSourceName } from '../domain/rates.ts';
import { createRateBook } from './book.ts';
import { createRateRefresher } from './refresh.ts';
import type { FetchFn, RateSource } from './source.ts';
import { SOURCE_FACTORIES } from './sources/index.ts';

/**
 * Fiat pricing from `pricing` in the config: the rate book every process reads, and (when some
 * pair lists sources) the refresher the worker leader runs. Nothing is fetched at build time.
 */
export function createPricing(c: Config['pricing'], d: { db: Db; clock: Clock; log: Logger; fetch?: FetchFn }) {
  const book = createRateBook({ db: d.db, clock: d.clock, pairs: c.pairs, maxAgeSeconds: c.maxAgeSeconds, usdtPeg: c.usdtPeg });
  const named = new Set(Object.values(c.pairs).flat() as RateSourceName[]);
  const sources = new Map<string, RateSource>();
  for (const name of named) {
    const s = c.sources[name];
    const key = s?.apiKey;
    sources.set(name, SOURCE_FACTORIES[name].build({ fetch: d.fetch ?? fetch, baseUrl: (s?.baseUrl ?? SOURCE_FACTORIES[name].baseUrl).replace(/\/+$/, ''), apiKey: key ? () => key.reveal() : undefined }));
  }
  const refresher = sources.size > 0 ? createRateRefresher({ book, sources, pairs: c.pairs, maxSpreadPercent: c.maxSpreadPercent, clock: d.clock, log: d.log }) : null;
  return { book, refresher };
}

export type Pricing = ReturnType<typeof createPricing>;

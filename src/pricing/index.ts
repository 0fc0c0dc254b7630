import type { Config } from '../config/read.ts';
import type { Db } from '../db/open.ts';
import type { Clock, Logger } from '../domain/ports.ts';
import { FIAT_CODES, pairsUsed, RATE_SOURCES, type Fiat, type RateSourceName } from '../domain/rates.ts';
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
export function createPricing(config: Config['pricing'], deps: { db: Db; clock: Clock; log: Logger; fetch?: FetchFn; pegs?: Readonly<Record<string, string>>; simulated?: boolean }) {
  const stampSlackSeconds = Object.fromEntries(Object.entries(SOURCE_FACTORIES).map(([name, f]) => [name, f.stampSlackSeconds]));
  const pegs = Object.fromEntries(Object.entries(deps.pegs ?? {}).filter(([unit]) => config.pegs[unit] !== false));
  // Simulated rates have no sources, so no pair rests on a single one.
  if (deps.simulated) return { book: createSimulatedRateBook({ clock: deps.clock, pegs }), refresher: null, loneSources: (): LoneSource[] => [] };
  const book = createRateBook({ db: deps.db, clock: deps.clock, pairs: config.pairs, maxAgeSeconds: config.maxAgeSeconds, maxSpreadPercent: config.maxSpreadPercent, stampSlackSeconds, pegs });
  const named = new Set(Object.values(config.pairs).flat() as RateSourceName[]);
  const sources = new Map<string, RateSource>();
  for (const name of named) {
    const s = config.sources[name];
    const key = s?.apiKey;
    sources.set(name, SOURCE_FACTORIES[name].build({ fetch: deps.fetch ?? fetch, baseUrl: (s?.baseUrl ?? SOURCE_FACTORIES[name].baseUrl).replace(/\/+$/, ''), apiKey: key ? () => key.reveal() : undefined }));
  }
  const refresher = sources.size > 0 ? createRateRefresher({ book, sources, pairs: config.pairs, maxSpreadPercent: config.maxSpreadPercent, maxChangePercent: config.maxChangePercent, clock: deps.clock, log: deps.log }) : null;

  /**
   * The configured pairs with a single source that a price for one of `methods` (id and the unit
   * it is priced in) converts through: that one source alone sets those prices. `others`: the
   * sources that also serve the pair, to add as a second.
   */
  function loneSources(methods: readonly { id: string; unit: string }[]): LoneSource[] {
    const configured = new Set(Object.keys(config.pairs));
    const out: LoneSource[] = [];
    for (const [pair, names] of Object.entries(config.pairs)) {
      if (names.length !== 1) continue;
      const uses = methods
        .map((m) => ({ method: m.id, fiats: FIAT_CODES.filter((fiat) => pairsUsed(m.unit, fiat, configured, pegs).includes(pair)) }))
        .filter((u) => u.fiats.length > 0);
      if (uses.length === 0) continue;
      const others = RATE_SOURCES.filter((name) => name !== names[0] && SOURCE_FACTORIES[name].build({ fetch: deps.fetch ?? fetch, baseUrl: SOURCE_FACTORIES[name].baseUrl }).supports(pair));
      out.push({ pair, source: names[0]!, uses, others });
    }
    return out;
  }

  return { book, refresher, loneSources };
}

/** A pair one source alone prices, and the methods and fiats whose prices go through it. */
export interface LoneSource {
  pair: string;
  source: string;
  /** Each method priced through it, and in which fiats. */
  uses: { method: string; fiats: Fiat[] }[];
  /** Other sources that serve the pair. */
  others: RateSourceName[];
}

export type Pricing = ReturnType<typeof createPricing>;


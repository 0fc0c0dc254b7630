import { formatRate, parseRate, resolveRate, type Fiat, type PairRate } from '../domain/rates.ts';
import type { Clock } from '../domain/ports.ts';
import type { PairStatus, RateBook } from './book.ts';

/** The source name a simulated quote carries, so no one mistakes it for a market. */
export const SIMULATED_SOURCE = 'simulated';

/**
 * The sandbox's fixed rates (docs/pricing.md lists them): round numbers near the market, so a
 * price can be tried in the demo without any rate source. Every other pair is reached the usual
 * way (peg, inverse, cross through USD: SOL/INR = SOL/USD × USD/INR).
 */
export const SIMULATED_RATES: Readonly<Record<string, string>> = {
  'USDT/INR': '85.5',
  'USDC/INR': '85.5',
  'SOL/USD': '150',
  'USD/INR': '85',
  'USD/EUR': '0.92',
};

/**
 * The rate book of a sandbox daemon: the same questions as the live one (pricing/book.ts),
 * answered from SIMULATED_RATES, always fresh, never fetched. Only the sandbox builds it.
 */
export function createSimulatedRateBook(options: { clock: Clock; pegs: Readonly<Record<string, string>> }): RateBook {
  const rates = new Map(Object.entries(SIMULATED_RATES).map(([pair, text]) => [pair, parseRate(text)!]));
  const fresh = (pair: string): PairRate | undefined => {
    const rate = rates.get(pair);
    return rate === undefined ? undefined : { rate, source: SIMULATED_SOURCE, at: options.clock.now() };
  };
  return {
    quote: async (unit: string, fiat: Fiat) => resolveRate(unit, fiat, fresh, options.pegs),
    // Every pair the simulation does not reach directly is a cross rate or a peg: nothing to configure.
    unconfigured: (unit: string, fiat: Fiat) => (resolveRate(unit, fiat, fresh, options.pegs) ? null : `${unit}/${fiat}`),
    accepted: async (pair: string) => rates.get(pair) ?? null,
    record: async () => {},
    status: async (): Promise<PairStatus[]> =>
      [...rates].map(([pair, rate]) => ({
        pair,
        rate: formatRate(rate),
        source: SIMULATED_SOURCE,
        ageSeconds: 0,
        sources: [{ source: SIMULATED_SOURCE, rate: formatRate(rate), ageSeconds: 0, outlier: false, failures: 0, error: null }],
      })),
  };
}

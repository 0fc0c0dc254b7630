import type { RateSourceName } from '../../domain/rates.ts';
import type { RateSource, SourceOptions } from '../source.ts';
import { binance } from './binance.ts';
import { coinbase } from './coinbase.ts';
import { coindcx } from './coindcx.ts';
import { coingecko } from './coingecko.ts';
import { frankfurter } from './frankfurter.ts';
import { kraken } from './kraken.ts';
import { wazirx } from './wazirx.ts';

/**
 * Each source's builder and its public base URL; `stampSlackSeconds`: how old the source's own
 * timestamp may be when it is healthy, where that exceeds pricing.maxAgeSeconds; `needsKey`: it
 * answers only with an API key (so it is never suggested to an operator who has none).
 */
export const SOURCE_FACTORIES: Record<RateSourceName, { build: (o: SourceOptions) => RateSource; baseUrl: string; stampSlackSeconds?: number; needsKey?: boolean }> = {
  coindcx: { build: coindcx, baseUrl: 'https://api.coindcx.com' },
  wazirx: { build: wazirx, baseUrl: 'https://api.wazirx.com' },
  kraken: { build: kraken, baseUrl: 'https://api.kraken.com' },
  coinbase: { build: coinbase, baseUrl: 'https://api.coinbase.com' },
  binance: { build: binance, baseUrl: 'https://data-api.binance.vision' },
  // ECB rates are dated by their working day (midnight UTC): a long weekend with a TARGET holiday
  // (Good Friday to Easter Monday) leaves Thursday's rate current until Tuesday afternoon.
  frankfurter: { build: frankfurter, baseUrl: 'https://api.frankfurter.dev', stampSlackSeconds: 6 * 86_400 },
  coingecko: { build: coingecko, baseUrl: 'https://api.coingecko.com', needsKey: true },
};

import { isFiat } from '../../domain/rates.ts';
import { getJson, isObject, rateOrFail, RateSourceError, splitPair, type RateSource, type SourceOptions } from '../source.ts';

/**
 * Kraken `GET /0/public/Ticker?pair=SOLUSD`. Errors come in `error` with HTTP 200 (a non-empty
 * array is a failure); the result key is not always the name asked for (USDTUSD → USDTZUSD),
 * so the single key of `result` is read. `c[0]` is the last trade. Any coin against USD or EUR
 * (SOLUSD, USDTUSD, USDCEUR): one Kraken does not list answers with its own error.
 */
export function kraken(options: SourceOptions): RateSource {
  return {
    name: 'kraken',
    supports: (pair) => ['USD', 'EUR'].includes(splitPair(pair)[1]) && !isFiat(splitPair(pair)[0]),
    async fetch(pair, signal) {
      const name = pair.replace('/', '');
      const body = await getJson(options, `${options.baseUrl}/0/public/Ticker?pair=${name}`, signal, { describe: (b) => (isObject(b) && Array.isArray(b.error) ? b.error.join(', ') : undefined) });
      if (!isObject(body)) throw new RateSourceError('answer is not an object');
      if (Array.isArray(body.error) && body.error.length > 0) throw new RateSourceError(body.error.map(String).join(', ').slice(0, 120));
      const keys = isObject(body.result) ? Object.keys(body.result) : [];
      if (keys.length !== 1) throw new RateSourceError(`expected one ticker for ${name}, got ${keys.length}`);
      const t = (body.result as Record<string, unknown>)[keys[0]];
      const c = isObject(t) && Array.isArray(t.c) ? t.c[0] : undefined;
      return { rate: rateOrFail(c, `${name} c[0]`) };
    },
  };
}

import { getJson, isObject, rateOrFail, RateSourceError, splitPair, type RateSource, type SourceOptions } from '../source.ts';
import { isFiat } from '../../domain/rates.ts';

/**
 * Frankfurter v1 (ECB reference rates, once per working day) `GET /v1/latest?base=USD&symbols=INR`
 * → {"base","date","rates":{"INR":86.09}}: fiat legs for cross rates. Numbers are JSON numbers,
 * read as their shortest exact decimal text. Pinned to /v1/: on v2 the same query means dates.
 */
export function frankfurter(options: SourceOptions): RateSource {
  return {
    name: 'frankfurter',
    supports: (pair) => splitPair(pair).every(isFiat),
    async fetch(pair, signal) {
      const [base, quote] = splitPair(pair);
      const body = await getJson(options, `${options.baseUrl}/v1/latest?base=${base}&symbols=${quote}`, signal, { describe: (b) => (isObject(b) ? String(b.message ?? '') : undefined) });
      if (!isObject(body) || !isObject(body.rates)) throw new RateSourceError('answer has no rates');
      if (body.base !== base) throw new RateSourceError(`answer is for base ${String(body.base)}, not ${base}`);
      const day = typeof body.date === 'string' ? Date.parse(`${body.date}T00:00:00Z`) : NaN;
      return { rate: rateOrFail(body.rates[quote], `${pair}`), sourceAt: Number.isFinite(day) ? day : undefined };
    },
  };
}

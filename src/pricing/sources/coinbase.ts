import { isFiat } from '../../domain/rates.ts';
import { getJson, isObject, rateOrFail, RateSourceError, splitPair, type RateSource, type SourceOptions } from '../source.ts';

/**
 * Coinbase `GET /v2/prices/SOL-USD/spot` → {"data":{"amount":"…","base","currency"}}; errors {"errors":[{id,message}]}.
 * Any coin priced in a fiat: the pair names the product (USDT-USD, USDC-USD, SOL-EUR), and one
 * Coinbase does not list is its own error.
 */
export function coinbase(options: SourceOptions): RateSource {
  return {
    name: 'coinbase',
    supports: (pair) => !isFiat(splitPair(pair)[0]) && isFiat(splitPair(pair)[1]),
    async fetch(pair, signal) {
      const [base, quote] = splitPair(pair);
      const body = await getJson(options, `${options.baseUrl}/v2/prices/${base}-${quote}/spot`, signal, {
        describe: (b) => (isObject(b) && Array.isArray(b.errors) ? b.errors.map((e) => (isObject(e) ? `${e.id}: ${e.message}` : '')).join(', ') : undefined),
      });
      if (!isObject(body) || !isObject(body.data)) throw new RateSourceError('answer has no data');
      if (body.data.base !== base || body.data.currency !== quote) throw new RateSourceError(`answer is for ${body.data.base}-${body.data.currency}, not ${base}-${quote}`);
      return { rate: rateOrFail(body.data.amount, `${base}-${quote} amount`) };
    },
  };
}

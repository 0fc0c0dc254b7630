import { getJson, isObject, rateOrFail, RateSourceError, splitPair, type RateSource, type SourceOptions } from '../source.ts';

/**
 * Binance `GET /api/v3/ticker/price?symbol=SOLUSDT` → {"symbol","price"}. Binance has no USD or
 * INR book: X/USD is read from X/USDT, i.e. USDT taken as 1 USD (list it for a pair only under
 * that assumption). Errors are {code, msg}, sometimes inside an HTTP 200; 451 is a geo-block.
 */
export function binance(options: SourceOptions): RateSource {
  return {
    name: 'binance',
    supports: (pair) => pair !== 'USDT/USD' && splitPair(pair)[1] === 'USD',
    async fetch(pair, signal) {
      const symbol = `${splitPair(pair)[0]}USDT`;
      const body = await getJson(options, `${options.baseUrl}/api/v3/ticker/price?symbol=${symbol}`, signal, { describe: (b) => (isObject(b) ? `${b.code} ${b.msg}` : undefined) });
      if (!isObject(body)) throw new RateSourceError('answer is not an object');
      if (body.code !== undefined) throw new RateSourceError(`error ${body.code}: ${String(body.msg).slice(0, 100)}`);
      if (body.symbol !== symbol) throw new RateSourceError(`answer is for ${String(body.symbol)}, not ${symbol}`);
      return { rate: rateOrFail(body.price, `${symbol} price`) };
    },
  };
}

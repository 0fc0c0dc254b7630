import { getJson, isObject, rateOrFail, RateSourceError, splitPair, type RateSource, type SourceOptions } from '../source.ts';

/** WazirX `GET /sapi/v1/ticker/24hr?symbol=usdtinr` (lower-case symbol; errors are {code, message}). */
export function wazirx(options: SourceOptions): RateSource {
  return {
    name: 'wazirx',
    supports: (pair) => splitPair(pair)[1] === 'INR',
    async fetch(pair, signal) {
      const symbol = pair.replace('/', '').toLowerCase();
      const body = await getJson(options, `${options.baseUrl}/sapi/v1/ticker/24hr?symbol=${symbol}`, signal, { describe: (b) => (isObject(b) ? `${b.code ?? ''} ${b.message ?? ''}`.trim() : undefined) });
      if (!isObject(body)) throw new RateSourceError('answer is not an object');
      if (body.code !== undefined && body.lastPrice === undefined) throw new RateSourceError(`error ${body.code}: ${body.message}`);
      const at = Number(body.at ?? body.closeTime);
      return { rate: rateOrFail(body.lastPrice, `${symbol} lastPrice`), sourceAt: Number.isFinite(at) && at > 0 ? (at < 1e12 ? at * 1000 : at) : undefined };
    },
  };
}

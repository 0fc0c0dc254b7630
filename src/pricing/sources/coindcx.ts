import { getJson, isObject, rateOrFail, RateSourceError, splitPair, type RateSource, type SourceOptions } from '../source.ts';

/**
 * CoinDCX `GET /exchange/ticker`: one array of every market ("USDTINR"), prices as strings,
 * `timestamp` in seconds (docs) or ms (seen in the wild). Indian INR books: USDT/INR, SOL/INR.
 */
export function coindcx(options: SourceOptions): RateSource {
  return {
    name: 'coindcx',
    supports: (pair) => splitPair(pair)[1] === 'INR',
    async fetch(pair, signal) {
      const market = pair.replace('/', '');
      const body = await getJson(options, `${options.baseUrl}/exchange/ticker`, signal, { describe: (b) => (isObject(b) ? String(b.message ?? b.error ?? '') : undefined) });
      if (!Array.isArray(body)) throw new RateSourceError('answer is not the array of markets');
      const row = body.find((r) => isObject(r) && r.market === market) as Record<string, unknown> | undefined;
      if (!row) throw new RateSourceError(`no market ${market}`);
      const ts = Number(row.timestamp);
      return { rate: rateOrFail(row.last_price, `${market} last_price`), sourceAt: Number.isFinite(ts) && ts > 0 ? (ts < 1e12 ? ts * 1000 : ts) : undefined };
    },
  };
}

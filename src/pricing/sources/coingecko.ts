import { getJson, isObject, rateOrFail, RateSourceError, splitPair, type RateSource, type SourceOptions } from '../source.ts';

/**
 * CoinGecko names coins by its own ids, not by ticker: the one per-coin fact this source needs,
 * keyed by the lower-case ticker as its coin list spells the `symbol`.
 */
const COIN_IDS: Record<string, string> = { usdt: 'tether', usdc: 'usd-coin', sol: 'solana' };
const coinId = (unit: string): string | undefined => (Object.hasOwn(COIN_IDS, unit.toLowerCase()) ? COIN_IDS[unit.toLowerCase()] : undefined);

/**
 * CoinGecko `GET /api/v3/simple/price?ids=tether&vs_currencies=inr&include_last_updated_at=true`
 * with the demo key (`x-cg-demo-api-key`, a secret reference: keyless access is no longer
 * dependable). Values are JSON numbers; an unknown id is just absent. Errors: {"status":{error_code, error_message}}.
 */
export function coingecko(options: SourceOptions): RateSource {
  return {
    name: 'coingecko',
    supports: (pair) => coinId(splitPair(pair)[0]) !== undefined,
    async fetch(pair, signal) {
      const [base, quote] = splitPair(pair);
      const id = coinId(base)!;
      const vs = quote.toLowerCase();
      const key = options.apiKey?.();
      const body = await getJson(options, `${options.baseUrl}/api/v3/simple/price?ids=${id}&vs_currencies=${vs}&include_last_updated_at=true`, signal, {
        headers: key ? { 'x-cg-demo-api-key': key } : {},
        describe: (b) => (isObject(b) && isObject(b.status) ? `${b.status.error_code} ${b.status.error_message}`.slice(0, 120) : undefined),
      });
      if (!isObject(body)) throw new RateSourceError('answer is not an object');
      const coin = body[id];
      if (!isObject(coin)) throw new RateSourceError(`no ${id} in the answer`);
      const at = Number(coin.last_updated_at);
      return { rate: rateOrFail(coin[vs], `${id}.${vs}`), sourceAt: Number.isFinite(at) && at > 0 ? at * 1000 : undefined };
    },
  };
}

import { downPage, json, served, type FakeHandler } from './kit.ts';

// CoinGecko GET /api/v3/simple/price: test/fixtures/rates/REAL-RATES.md §1 (keyed by coin id then lower-case currency,
// JSON numbers, last_updated_at in seconds; 401 error_code 10002 without a key; 429 "You've
// exceeded the Rate Limit."). Needs the demo key `demo-key` in x-cg-demo-api-key.
const IDS: Record<string, string> = { tether: 'USDT', solana: 'SOL' };
export const coingecko = (key = 'demo-key'): ((url: URL, s: Parameters<FakeHandler>[1], headers: Headers) => ReturnType<FakeHandler>) => (url, s, headers) => {
  if (url.pathname !== '/api/v3/simple/price') return json(404, { error: 'Not Found' });
  if (s.mode === 'down') return downPage();
  if (headers.get('x-cg-demo-api-key') !== key)
    return json(401, { status: { timestamp: new Date().toISOString(), error_code: 10002, error_message: "API Key Missing. Please make sure you're using the right authentication method. For Pro API, please visit: https://docs.coingecko.com/reference/authentication. For Public/Demo API, please visit: https://docs.coingecko.com/reference/setting-up-your-api-key" } });
  if (s.mode === 'rate-limited') return json(429, { status: { error_code: 429, error_message: "You've exceeded the Rate Limit." } }, { 'retry-after': '60' });
  if (s.mode === 'error') return json(500, { status: { error_code: 500, error_message: 'Internal Server Error' } });
  const out: Record<string, Record<string, unknown>> = {};
  for (const id of (url.searchParams.get('ids') ?? '').split(',')) {
    const base = IDS[id];
    if (!base) continue;
    for (const vs of (url.searchParams.get('vs_currencies') ?? '').split(',')) {
      const v = served(s, `${base}/${vs.toUpperCase()}`);
      if (v === undefined) continue;
      out[id] ??= {};
      out[id][vs] = Number.isNaN(Number(v)) ? v : Number(v);
      out[id].last_updated_at = Math.floor(Date.now() / 1000);
    }
  }
  return json(200, out);
};

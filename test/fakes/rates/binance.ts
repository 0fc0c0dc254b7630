import { downPage, json, served, type FakeHandler } from './kit.ts';

// Binance GET /api/v3/ticker/price?symbol=SOLUSDT: test/fixtures/rates/REAL-RATES.md §2 ({"symbol","price"}; 429 with
// code -1003 and Retry-After; 451 geo-block body; -1121 Invalid symbol). Rates are keyed "SOL/USDT".
export const binance: FakeHandler = (url, s) => {
  if (url.pathname !== '/api/v3/ticker/price') return json(404, { code: -1, msg: 'Not found' });
  if (s.mode === 'down') return downPage();
  if (s.mode === 'rate-limited') return json(429, { code: -1003, msg: 'Too much request weight used; current limit is 6000 request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.' }, { 'retry-after': '30' });
  if (s.mode === 'error')
    return json(451, { code: 0, msg: "Service unavailable from a restricted location according to 'b. Eligibility' in https://www.binance.com/en/terms. Please contact customer service if you believe you received this message in error." });
  const symbol = url.searchParams.get('symbol') ?? '';
  const pair = Object.keys(s.rates).find((p) => p.replace('/', '') === symbol);
  if (!pair) return json(400, { code: -1121, msg: 'Invalid symbol.' });
  return json(200, { symbol, price: served(s, pair) });
};

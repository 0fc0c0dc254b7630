import { downPage, json, served, type FakeHandler } from './kit.ts';

// WazirX GET /sapi/v1/ticker/24hr?symbol=usdtinr: test/fixtures/rates/REAL-RATES.md §6 (field names lastPrice/bidPrice/
// askPrice; errors {code, message} per docs.wazirx.com).
export const wazirx: FakeHandler = (url, s) => {
  if (url.pathname !== '/sapi/v1/ticker/24hr') return json(404, { code: -1, message: 'Not found' });
  if (s.mode === 'down') return downPage();
  if (s.mode === 'rate-limited') return json(429, { code: -1003, message: 'Too many requests.' }, { 'retry-after': '30' });
  if (s.mode === 'error') return json(400, { code: -1121, message: 'Invalid symbol.' });
  const symbol = url.searchParams.get('symbol') ?? '';
  const pair = Object.keys(s.rates).find((p) => p.replace('/', '').toLowerCase() === symbol);
  if (!pair) return json(400, { code: -1121, message: 'Invalid symbol.' });
  const last = served(s, pair)!;
  return json(200, { symbol, baseAsset: symbol.slice(0, -3), quoteAsset: 'inr', openPrice: last, lowPrice: last, highPrice: last, lastPrice: last, volume: '1000', bidPrice: last, askPrice: last, at: Date.now() });
};

import { downPage, json, served, type FakeHandler } from './kit.ts';

// CoinDCX GET /exchange/ticker: test/fixtures/rates/REAL-RATES.md §5 (docs example shape: one array of every market,
// prices as strings, timestamp in seconds). No rate-limit body is documented: 429 with an empty body.
export const coindcx: FakeHandler = (url, s) => {
  if (url.pathname !== '/exchange/ticker') return json(404, { status: 'error', message: 'Not Found', code: 404 });
  if (s.mode === 'down') return downPage();
  if (s.mode === 'rate-limited') return { status: 429, headers: { 'retry-after': '30' }, body: '' };
  if (s.mode === 'error') return json(500, { status: 'error', message: 'Internal Server Error', code: 500 });
  const rows = [{ market: 'REQBTC', change_24_hour: '-1.621', high: '0.00002799', low: '0.00002626', volume: '14.10', last_price: '0.00002663', bid: '0.00002663', ask: '0.00002669', timestamp: 1524211224 }];
  for (const pair of Object.keys(s.rates)) {
    const last = served(s, pair)!;
    rows.push({ market: pair.replace('/', ''), change_24_hour: '0.12', high: last, low: last, volume: '1000.0', last_price: last, bid: last, ask: last, timestamp: Math.floor(Date.now() / 1000) });
  }
  return json(200, rows);
};

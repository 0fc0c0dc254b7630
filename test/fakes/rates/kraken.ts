import { downPage, json, served, type FakeHandler } from './kit.ts';

// Kraken GET /0/public/Ticker?pair=…: test/fixtures/rates/REAL-RATES.md §3 (USDTUSD answers under USDTZUSD; errors in
// `error` with HTTP 200: "EQuery:Unknown asset pair", "EAPI:Rate limit exceeded").
const KEYS: Record<string, string> = { USDTUSD: 'USDTZUSD', USDTEUR: 'USDTZEUR' };
export const kraken: FakeHandler = (url, s) => {
  if (url.pathname !== '/0/public/Ticker') return json(404, { error: ['EGeneral:Unknown method'] });
  if (s.mode === 'down') return downPage();
  if (s.mode === 'rate-limited') return json(200, { error: ['EAPI:Rate limit exceeded'] });
  if (s.mode === 'error') return json(200, { error: ['EService:Unavailable'] });
  const name = url.searchParams.get('pair') ?? '';
  const pair = Object.keys(s.rates).find((p) => p.replace('/', '') === name);
  if (!pair) return json(200, { error: ['EQuery:Unknown asset pair'] });
  const c = served(s, pair)!;
  return json(200, { error: [], result: { [KEYS[name] ?? name]: { a: [c, '1', '1.000'], b: [c, '1', '1.000'], c: [c, '0.5'], v: ['100', '200'], p: [c, c], t: [10, 20], l: [c, c], h: [c, c], o: c } } });
};

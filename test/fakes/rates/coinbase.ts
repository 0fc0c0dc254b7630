import { downPage, json, served, type FakeHandler } from './kit.ts';

// Coinbase GET /v2/prices/{BASE-QUOTE}/spot: test/fixtures/rates/REAL-RATES.md §4 ({"data":{"amount","base","currency"}};
// errors {"errors":[{"id":"not_found","message":"Invalid currency"}]}, 429 rate_limit_exceeded).
export const coinbase: FakeHandler = (url, s) => {
  const m = /^\/v2\/prices\/([A-Z]+)-([A-Z]+)\/spot$/.exec(url.pathname);
  if (!m) return json(404, { errors: [{ id: 'not_found', message: 'Not found' }] });
  if (s.mode === 'down') return downPage();
  if (s.mode === 'rate-limited') return json(429, { errors: [{ id: 'rate_limit_exceeded', message: 'Too many requests' }] }, { 'retry-after': '30' });
  if (s.mode === 'error') return json(404, { errors: [{ id: 'not_found', message: 'Invalid base currency' }] });
  const pair = `${m[1]}/${m[2]}`;
  if (!(pair in s.rates)) return json(404, { errors: [{ id: 'not_found', message: 'Invalid currency' }] });
  return json(200, { data: { amount: served(s, pair), base: m[1], currency: m[2] } });
};

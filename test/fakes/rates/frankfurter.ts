import { downPage, json, served, type FakeHandler } from './kit.ts';

// Frankfurter v1 GET /v1/latest?base=USD&symbols=INR: test/fixtures/rates/REAL-RATES.md §7 ({"amount":1.0,"base","date",
// "rates":{…}} with JSON numbers; 404 {"message":"not found"}, 422 {"message":"bad currency pair"}).
// Frankfurter documents no rate limit: rate-limited serves what a CDN in front would (429, no body).
export const frankfurter: FakeHandler = (url, s) => {
  if (url.pathname !== '/v1/latest') return json(404, { status: 404, message: 'not found' });
  if (s.mode === 'down') return downPage();
  if (s.mode === 'rate-limited') return { status: 429, headers: { 'retry-after': '30' }, body: '' };
  if (s.mode === 'error') return json(422, { message: 'bad currency pair' });
  const base = url.searchParams.get('base') ?? url.searchParams.get('from') ?? 'EUR';
  const symbols = (url.searchParams.get('symbols') ?? url.searchParams.get('to') ?? '').split(',');
  const rates: Record<string, unknown> = {};
  for (const q of symbols) {
    const v = served(s, `${base}/${q}`);
    if (v !== undefined) rates[q] = Number.isNaN(Number(v)) ? v : Number(v);
  }
  if (Object.keys(rates).length === 0) return json(404, { message: 'not found' });
  // A number written raw, as the source's JSON has it (86.09, not "86.09").
  return json(200, `{"amount":1.0,"base":"${base}","date":"${new Date().toISOString().slice(0, 10)}","rates":${JSON.stringify(rates)}}`);
};

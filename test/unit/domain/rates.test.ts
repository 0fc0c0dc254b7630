import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agreedRate, convertPrice, pairsUsed, formatRate, invertRate, parseRate, ratio, ratioToRate, resolveRate, screenOutliers, unconfirmedJumps, type PairRate } from '../../../src/domain/rates.ts';

const r = (s: string) => parseRate(s)!;

test('rates parse exactly from decimal strings and JSON numbers; zero, negative and non-numeric are not rates', () => {
  assert.equal(formatRate(r('83.75')), '83.75');
  assert.equal(formatRate(r('0.99967000')), '0.99967');
  // CoinGecko's long float keeps every digit it was written with (no float arithmetic on the way).
  assert.equal(formatRate(parseRate(67187.3358936566)!), '67187.3358936566');
  assert.equal(formatRate(parseRate(86.09)!), '86.09');
  for (const bad of ['0', '0.000', '-83.75', 'abc', '', 'NaN', '1e3', ' ', null, undefined, 0, -1, Number.NaN, Number.POSITIVE_INFINITY, {}, ['83']]) assert.equal(parseRate(bad), null, String(bad));
});

test('conversion rounds UP to the method step: the merchant never gets less than the price', () => {
  // ₹1,999.00 at 83.75 ₹/USDT = 23.868656… USDT → 23.87 (USDT: 6 decimals, 0.01 steps).
  assert.equal(convertPrice(199900n, 2, ratio(r('83.75')), 6, 10_000n), 23_870_000n);
  // Exactly on a step stays there: $100.00 at 1 = 100.00 USDT; at 0.8 = 125.00.
  assert.equal(convertPrice(10000n, 2, ratio(r('1')), 6, 10_000n), 100_000_000n);
  assert.equal(convertPrice(10000n, 2, ratio(r('0.8')), 6, 10_000n), 125_000_000n);
  // One micro-unit over a step goes to the next step: 1.000001 USDT worth → 1.01.
  assert.equal(convertPrice(1_000_001n, 6, ratio(r('1')), 6, 10_000n), 1_010_000n);
  // Just under a step boundary rounds up to it: ₹83.74 at 83.75 = 0.99988… → 1.00 USDT.
  assert.equal(convertPrice(8374n, 2, ratio(r('83.75')), 6, 10_000n), 1_000_000n);
  // SOL: 9 decimals, 0.000001 steps. ₹1,999 at 12600 ₹/SOL = 0.158650793… → 0.158651.
  assert.equal(convertPrice(199900n, 2, ratio(r('12600')), 9, 1_000n), 158_651_000n);
  // A price that lands exactly on a lamport step boundary is not bumped: $1.50 at 150 = 0.01 SOL.
  assert.equal(convertPrice(150n, 2, ratio(r('150')), 9, 1_000n), 10_000_000n);
  // One lamport worth over the boundary takes the next 0.000001 step.
  assert.equal(convertPrice(10_000_001n, 9, ratio(r('1')), 9, 1_000n), 10_001_000n);
  // UPI from a USD price through the inverse of USD/INR: $10.00 at 84 ₹/$ = ₹840.00, never less.
  assert.equal(convertPrice(1000n, 2, invertRate(ratio(r('84'))), 2, 1n), 84_000n);
  assert.equal(convertPrice(1000n, 2, invertRate(ratio(r('83.99'))), 2, 1n), 83_990n);
});

test('a source further than maxSpreadPercent from the median is screened out; one reading stands alone', () => {
  const readings = [{ s: 'kraken', rate: r('195') }, { s: 'coinbase', rate: r('150.10') }, { s: 'binance', rate: r('149.95') }];
  const out = screenOutliers(readings, 3);
  assert.deepEqual(out.outliers.map((x) => x.s), ['kraken']);
  assert.deepEqual(out.kept.map((x) => x.s), ['coinbase', 'binance']);
  assert.deepEqual(screenOutliers([readings[0]], 3).kept.map((x) => x.s), ['kraken']);
  // 2.9 % off the median of three stays; 3.1 % does not.
  assert.equal(screenOutliers([{ rate: r('100') }, { rate: r('100') }, { rate: r('102.9') }], 3).outliers.length, 0);
  assert.equal(screenOutliers([{ rate: r('100') }, { rate: r('100') }, { rate: r('103.1') }], 3).outliers.length, 1);
});

test('absurd rates are parse failures: below 10^-9 or from 10^9 up (the 10^30 a lying source could send)', () => {
  for (const bad of ['1000000000', '999999999999999999999999999999', '0.0000000009', 1e30]) assert.equal(parseRate(bad), null, String(bad));
  assert.equal(formatRate(r('999999999.99')), '999999999.99');
  assert.equal(formatRate(r('0.000000001')), '0.000000001');
});

test('agreedRate: the median of the agreeing readings, at least `required` of them, named after the middle source(s)', () => {
  const at = (source: string, rate: string, t = 10) => ({ source, rate: r(rate), at: t });
  const three = agreedRate([at('coindcx', '83.75', 5), at('wazirx', '83.80'), at('coingecko', '83.70')], 2, 3)!;
  assert.deepEqual([formatRate(three.rate), three.source, three.at], ['83.75', 'coindcx', 5]);
  const two = agreedRate([at('coindcx', '83.75'), at('wazirx', '83.80')], 2, 3)!;
  assert.deepEqual([formatRate(two.rate), two.source], ['83.775', 'coindcx+wazirx']);
  // One left of two configured: refused; one configured on purpose: it stands.
  assert.equal(agreedRate([at('coindcx', '83.75')], 2, 3), undefined);
  assert.equal(agreedRate([at('frankfurter', '84')], 1, 3)!.source, 'frankfurter');
  // Two that disagree: neither counts.
  assert.equal(agreedRate([at('coindcx', '999999999'), at('wazirx', '83.80')], 2, 3), undefined);
  // Three with one gone wild: the other two's median.
  assert.equal(agreedRate([at('kraken', '195'), at('coinbase', '150.10'), at('binance', '149.95')], 2, 3)!.source, 'coinbase+binance');
});

test('unconfirmedJumps: a reading beyond maxChangePercent of the accepted rate waits unless another source of the refresh agrees', () => {
  const accepted = r('83.775');
  const lone = [{ s: 'coindcx', rate: r('999999999') }];
  assert.deepEqual(unconfirmedJumps(lone, accepted, 10, 3).map((x) => x.s), ['coindcx']);
  assert.deepEqual(unconfirmedJumps(lone, null, 10, 3), [], 'nothing accepted yet: nothing to bound by');
  // 9 % is inside a 10 % bound; 11 % is not.
  assert.equal(unconfirmedJumps([{ rate: r('91.31') }], accepted, 10, 3).length, 0);
  assert.equal(unconfirmedJumps([{ rate: r('93') }], accepted, 10, 3).length, 1);
  // Two sources reporting the same move: both taken.
  assert.equal(unconfirmedJumps([{ rate: r('93') }, { rate: r('93.10') }], accepted, 10, 3).length, 0);
});

test('resolveRate: identity, the USDT peg, a direct pair, its inverse, and a cross rate through USD', () => {
  const fresh: Record<string, PairRate> = {
    'USDT/INR': { rate: r('83.75'), source: 'coindcx', at: 1 },
    'SOL/USD': { rate: r('150'), source: 'kraken', at: 2 },
    'USD/INR': { rate: r('84'), source: 'frankfurter', at: 3 },
    'USD/EUR': { rate: r('0.9'), source: 'frankfurter', at: 4 },
  };
  const get = (p: string) => fresh[p];
  const PEGGED = { USDT: 'USD', USDC: 'USD' };
  assert.equal(resolveRate('INR', 'INR', get, PEGGED)!.source, 'identity');
  assert.deepEqual([formatRate(ratioToRate(resolveRate('USDT', 'USD', get, PEGGED)!.rate)), resolveRate('USDT', 'USD', get, PEGGED)!.source], ['1', 'peg']);
  assert.equal(resolveRate('USDT', 'USD', get, {}), undefined, 'no peg and no USDT/USD market rate');
  assert.equal(resolveRate('USDC', 'USD', get, PEGGED)!.source, 'peg', 'USDC is pegged like USDT');
  assert.equal(resolveRate('USDC', 'USD', get, { USDT: 'USD' }), undefined, 'each peg is its own');
  assert.equal(resolveRate('USDT', 'INR', get, PEGGED)!.source, 'coindcx');
  const solInr = resolveRate('SOL', 'INR', get, PEGGED)!;
  assert.deepEqual([formatRate(ratioToRate(solInr.rate)), solInr.source, solInr.at], ['12600', 'kraken×frankfurter', 2]);
  const usdtEur = resolveRate('USDT', 'EUR', get, PEGGED)!;
  assert.deepEqual([formatRate(ratioToRate(usdtEur.rate)), usdtEur.source], ['0.9', 'peg×frankfurter']);
  const inrUsd = resolveRate('INR', 'USD', get, PEGGED)!;
  assert.equal(inrUsd.source, 'frankfurter');
  // Exact: 1/84 ₹ per… shown rounded down at 18 decimals.
  assert.equal(formatRate(ratioToRate(inrUsd.rate)), '0.011904761904761904');
  assert.equal(resolveRate('SOL', 'EUR', (p) => (p === 'USD/EUR' ? undefined : get(p)), PEGGED), undefined);
  // A configured pair without a fresh rate is not replaced by a cross rate (USDT × USD/INR is another price).
  assert.equal(resolveRate('USDT', 'INR', (p) => (p === 'USDT/INR' ? 'stale' : get(p)), PEGGED), undefined);
  assert.equal(resolveRate('USDT', 'INR', (p) => (p === 'USDT/INR' ? undefined : get(p)), PEGGED)!.source, 'peg×frankfurter');
});

test('pairsUsed: the configured pairs a price converts through (what payd doctor names when one source alone prices them)', () => {
  const configured = new Set(['USDT/INR', 'SOL/USD', 'USD/INR', 'USD/EUR']);
  const pegs = { USDT: 'USD' };
  assert.deepEqual(pairsUsed('USDT', 'INR', configured, pegs), ['USDT/INR'], 'the direct pair, not the cross through the peg');
  assert.deepEqual(pairsUsed('SOL', 'INR', configured, pegs), ['SOL/USD', 'USD/INR']);
  assert.deepEqual(pairsUsed('INR', 'USD', configured, pegs), ['USD/INR'], 'the inverse');
  assert.deepEqual(pairsUsed('USDT', 'EUR', configured, pegs), ['USD/EUR'], 'the peg needs no pair');
  assert.deepEqual(pairsUsed('USDT', 'USD', configured, pegs), []);
  assert.deepEqual(pairsUsed('SOL', 'EUR', new Set(['SOL/USD']), pegs), [], 'no route: nothing is relied on');
});

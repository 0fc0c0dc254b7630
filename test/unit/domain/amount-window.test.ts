import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../src/methods/load-config.ts';
import { isRoundAmount, MAX_SURCHARGE_STEPS, maxPayAmount, merchantShare, roundOffsets, topOffsetSteps, windowCapacity, type AmountWindowRules } from '../../../src/domain/amount-window.ts';
import { builtinMethods } from '../../../src/methods/registry.ts';

const upi: AmountWindowRules = { stepMinor: 1n, maxOffsetSteps: 100, surchargeBasisPoints: 100n, roundUnitMinor: 100n };

test('the window is the larger of maxOffsetSteps and maxSurchargePercent of the price', () => {
  assert.equal(topOffsetSteps(49_900n, upi), 499n, '₹499 at 1 %: up to ₹4.99 more');
  assert.equal(maxPayAmount(49_900n, upi), 50_399n);
  assert.equal(topOffsetSteps(1_000n, upi), 100n, '₹10: 1 % is 10 paise, the fixed 100 steps win');
  assert.equal(topOffsetSteps(49_900n, { ...upi, surchargeBasisPoints: 0n }), 100n, '0 %: maxOffsetSteps only (the behaviour before the surcharge cap)');
  assert.equal(topOffsetSteps(49_900n, { ...upi, surchargeBasisPoints: 250n }), 1247n, '2.5 % of ₹499 = ₹12.475, whole steps below it');
  // USDT 0.01 steps (10,000 micro-units): 1 % of 100 USDT is 1 USDT = 100 steps.
  assert.equal(topOffsetSteps(100_000_000n, { stepMinor: 10_000n, maxOffsetSteps: 10, surchargeBasisPoints: 100n }), 100n);
  // The surcharge alone never makes one create search more than MAX_SURCHARGE_STEPS amounts.
  assert.equal(topOffsetSteps(100_000_00n * 1000n, upi), MAX_SURCHARGE_STEPS);
  assert.equal(topOffsetSteps(100_000_00n * 1000n, { ...upi, maxOffsetSteps: 20_000 }), 20_000n, 'an explicit maxOffsetSteps still counts');
});

test('methods.<M>.maxSurchargePercent: default 1 %, 0 … 100 with at most 2 decimals', () => {
  const sol = (extra: Record<string, unknown> = {}) => ({ methods: { SOL: { wallet: '11111111111111111111111111111111', ...extra } } });
  assert.equal(parseConfig(sol(), '/srv', {}).amounts.SOL!.surchargeBasisPoints, 100n);
  assert.equal(parseConfig(sol({ maxSurchargePercent: 0.25 }), '/srv', {}).amounts.SOL!.surchargeBasisPoints, 25n);
  assert.equal(parseConfig(sol({ maxSurchargePercent: 0 }), '/srv', {}).amounts.SOL!.surchargeBasisPoints, 0n);
  assert.throws(() => parseConfig(sol({ maxSurchargePercent: 0.125 }), '/srv', {}), /methods\.SOL\.maxSurchargePercent: at most 2 decimals/);
  assert.throws(() => parseConfig(sol({ maxSurchargePercent: 101 }), '/srv', {}), /methods\.SOL\.maxSurchargePercent/);
  assert.throws(() => parseConfig(sol({ maxSurchargePercent: -1 }), '/srv', {}), /methods\.SOL\.maxSurchargePercent/);
});

test('methods.<M>.merchantSharePercent: how many of a window\'s amounts one shop may hold (default 100: no cap)', () => {
  assert.equal(merchantShare(500n, 80), 400n, '80 % of 500 amounts');
  assert.equal(merchantShare(windowCapacity(49_900n, upi), 80), 396n, '80 % of ₹499.00\'s 495 amounts (₹499.00 … ₹503.99 less its five whole rupees)');
  assert.equal(merchantShare(101n, 50), 50n, '50 % of 101 amounts, rounded down');
  assert.equal(merchantShare(3n, 10), 1n, 'never below one');
  const sol = (extra: Record<string, unknown> = {}) => ({ methods: { SOL: { wallet: '11111111111111111111111111111111', ...extra } } });
  assert.equal(parseConfig(sol(), '/srv', {}).amounts.SOL!.merchantSharePercent, 100);
  assert.equal(parseConfig(sol({ merchantSharePercent: 60 }), '/srv', {}).amounts.SOL!.merchantSharePercent, 60);
  assert.throws(() => parseConfig(sol({ merchantSharePercent: 0 }), '/srv', {}), /methods\.SOL\.merchantSharePercent/);
});

/** Every amount of the window, enumerated: what the counted figures are checked against. */
function enumerate(amountMinor: bigint, r: AmountWindowRules): bigint[] {
  const out: bigint[] = [];
  for (let k = 0n; k <= topOffsetSteps(amountMinor, r); k++) out.push(amountMinor + k * r.stepMinor);
  return out;
}

test('no pay amount is a whole unit: a payer rounding ₹499.37 down to ₹499.00 never pays another intent exactly', () => {
  for (const m of builtinMethods.list) assert.ok(m.rules.roundUnitMinor !== null && m.rules.roundUnitMinor === 10n ** BigInt(m.rules.decimals), `${m.id}: its round unit is one whole ${m.rules.unit}`);
  assert.equal(isRoundAmount(49_900n, upi), true);
  assert.equal(isRoundAmount(49_937n, upi), false);
  assert.equal(isRoundAmount(49_900n, { roundUnitMinor: null }), false, 'a method that never matches by amount skips nothing');
  // The capacity per price the trade-off costs, with the defaults (100 steps of 0.01, 1 %).
  const figures = (r: AmountWindowRules, prices: bigint[]) => prices.map((p) => [enumerate(p, r).length, Number(windowCapacity(p, r))]);
  const fixed = { ...upi, surchargeBasisPoints: 0n };
  assert.deepEqual(figures(fixed, [49_900n, 49_937n, 49_950n, 1_000n]), [[101, 99], [101, 100], [101, 100], [101, 99]], '₹499.00 … ₹500.00 loses both ends, ₹499.37 … ₹500.37 loses ₹500.00');
  assert.deepEqual(figures(upi, [49_900n, 49_937n]), [[500, 495], [500, 495]], 'at 1 % of ₹499: ₹499 … ₹503.99, five whole rupees');
  const usdt: AmountWindowRules = { stepMinor: 10_000n, maxOffsetSteps: 100, surchargeBasisPoints: 100n, roundUnitMinor: 1_000_000n };
  assert.deepEqual(figures(usdt, [25_000_000n, 25_010_000n]), [[101, 99], [101, 100]], 'USDT 25.00 … 26.00 in 0.01 steps: 25.00 and 26.00 are whole');
  // The count agrees with enumerating the window, for odd steps and units too (SOL: 10^6 steps per unit).
  const cases: [bigint, AmountWindowRules][] = [
    [49_900n, { ...upi, stepMinor: 3n }],
    [49_901n, { ...upi, stepMinor: 7n, surchargeBasisPoints: 1000n }],
    [50_000n, { ...upi, stepMinor: 50n }],
    [12_345n, { ...upi, stepMinor: 25n, maxOffsetSteps: 1000 }],
    [2_000_000_000n, { stepMinor: 1_000n, maxOffsetSteps: 100, surchargeBasisPoints: 100n, roundUnitMinor: 1_000_000_000n }],
    [1_999_990_000n, { stepMinor: 1_000n, maxOffsetSteps: 100, surchargeBasisPoints: 0n, roundUnitMinor: 1_000_000_000n }],
  ];
  // A step that is a multiple of the round unit would make every amount of a whole price whole: refused.
  const solConf = (extra: Record<string, unknown>) => ({ methods: { SOL: { wallet: '11111111111111111111111111111111', ...extra } } });
  assert.throws(() => parseConfig(solConf({ amountStep: 2 }), '/srv', {}), /methods\.SOL\.amountStep: must not be a multiple of 1(\.0+)? \(pay amounts are never whole SOL\)/);
  assert.equal(parseConfig(solConf({ amountStep: 0.5 }), '/srv', {}).amounts.SOL!.roundUnitMinor, 1_000_000_000n);
  for (const [price, r] of cases) {
    const all = enumerate(price, r);
    assert.equal(roundOffsets(price, BigInt(all.length - 1), r), BigInt(all.filter((a) => a % r.roundUnitMinor! === 0n).length), `${price} step ${r.stepMinor}`);
  }
});

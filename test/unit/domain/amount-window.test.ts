import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../src/methods/load-config.ts';
import { MAX_SURCHARGE_STEPS, maxPayAmount, merchantShare, topOffsetSteps } from '../../../src/domain/amount-window.ts';

const upi = { stepMinor: 1n, maxOffsetSteps: 100, surchargeBasisPoints: 100n };

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
  assert.equal(merchantShare(499n, 80), 400n, '80 % of ₹499\'s 500 amounts');
  assert.equal(merchantShare(100n, 50), 50n, '50 % of 101 amounts, rounded down');
  assert.equal(merchantShare(2n, 10), 1n, 'never below one');
  const sol = (extra: Record<string, unknown> = {}) => ({ methods: { SOL: { wallet: '11111111111111111111111111111111', ...extra } } });
  assert.equal(parseConfig(sol(), '/srv', {}).amounts.SOL!.merchantSharePercent, 100);
  assert.equal(parseConfig(sol({ merchantSharePercent: 60 }), '/srv', {}).amounts.SOL!.merchantSharePercent, 60);
  assert.throws(() => parseConfig(sol({ merchantSharePercent: 0 }), '/srv', {}), /methods\.SOL\.merchantSharePercent/);
});

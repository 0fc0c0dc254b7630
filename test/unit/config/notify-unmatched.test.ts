import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unmatchedPlanWith } from '../../../src/app/notify.ts';
import { parseConfig } from '../../../src/methods/load-config.ts';
import { builtinMethods } from '../../../src/methods/registry.ts';

test('notifications.unmatched: amounts are decimals in the method unit, kept exact; an unknown method or too many decimals is refused by name', () => {
  const c = parseConfig({ notifications: { email: { host: 'smtp.example.com', from: 'payd@shop.example', to: ['me@shop.example'] }, unmatched: { below: { SOL: '0.001', USDT_SOL: '0.5' } } } }, '/srv/payd', {});
  const plan = unmatchedPlanWith(builtinMethods, c.notifications!.unmatched);
  assert.deepEqual([...plan.below], [['SOL', 1_000_000n], ['USDT_SOL', 500_000n]]);
  assert.equal(plan.burst, 5);
  assert.equal(plan.periodMs, 3_600_000);
  assert.throws(() => unmatchedPlanWith(builtinMethods, { below: { BTC: '0.1' }, burst: 5, periodMinutes: 60 }), /notifications\.unmatched\.below\.BTC: not a payment method of this payd/);
  assert.throws(() => unmatchedPlanWith(builtinMethods, { below: { UPI: '0.001' }, burst: 5, periodMinutes: 60 }), /notifications\.unmatched\.below\.UPI: "0\.001" has more than 2 decimals/);
  assert.throws(() => parseConfig({ notifications: { unmatched: { below: { SOL: 0.001 }, burst: -1 } } }, '/srv/payd', {}), (e: Error) => /notifications\.unmatched\.below\.SOL: expected a decimal amount as a string/.test(e.message) && /notifications\.unmatched\.burst: must not be negative/.test(e.message));
});

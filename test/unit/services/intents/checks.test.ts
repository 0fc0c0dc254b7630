// A create's business rules (in order: method → decimals → range) and a fiat price's
// shape, each refused with the code and the words a merchant's developer acts on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PaydError } from '../../../../src/domain/errors.ts';
import { upiMethod } from '../../../../src/methods/upi/method.ts';
import { checkAmount, checkMethod, checkPrice, checkRange } from '../../../../src/services/intents/checks.ts';
import type { MethodDeposit } from '../../../../src/services/intents/inputs.ts';

const upi: MethodDeposit = {
  method: upiMethod,
  payeeName: 'Shop',
  amounts: { receiver: 'shop@hdfcbank', minMinor: 100n, maxMinor: 10_000_000n, stepMinor: 1n, maxOffsetSteps: 100, surchargeBasisPoints: 100n, merchantSharePercent: 100, roundUnitMinor: 100n },
};
const methods = { UPI: upi };

const refused = (fn: () => unknown, code: string, words: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof PaydError && e.code === code && words.test(e.message));

test('an unknown or disabled method names the ones enabled here', () => {
  refused(() => checkMethod(methods, { currency: 'USDT_TRC20', amount: 1, order_id: 'o' }), 'METHOD_UNSUPPORTED', /use one of: UPI$/);
  refused(() => checkMethod({}, { currency: 'UPI', amount: 1, order_id: 'o' }), 'METHOD_UNSUPPORTED', /\(none enabled\)/);
  // A name inherited from Object.prototype is not a method.
  refused(() => checkMethod(methods, { currency: 'toString', amount: 1, order_id: 'o' }), 'METHOD_UNSUPPORTED', /toString/);
});

test('an amount is read in the method minor units, too many decimals refused before the range', () => {
  assert.equal(checkAmount(methods, { currency: 'UPI', amount: 499.37, order_id: 'o' }).amountMinor, 49937n);
  assert.throws(
    () => checkAmount(methods, { currency: 'UPI', amount: 0.001, order_id: 'o' }),
    (e: unknown) => e instanceof PaydError && e.code === 'INVALID_REQUEST' && JSON.stringify(e.errors) === JSON.stringify([{ field: 'amount', message: 'at most 2 decimal places' }]),
  );
  refused(() => checkAmount(methods, { currency: 'UPI', amount: 0.5, order_id: 'o' }), 'AMOUNT_OUT_OF_RANGE', /^amount must be at least 1 and at most 100000 INR for UPI$/);
});

test('a priced amount out of range says what the price converted to', () => {
  refused(() => checkRange('UPI', upi, 20_000_000n, true), 'AMOUNT_OUT_OF_RANGE', /^the price converts to 200000 INR; it must be/);
});

test('a fiat price: a known currency and its own decimals', () => {
  assert.deepEqual(checkPrice({ amount: 19.9, currency: 'USD' }), { fiat: 'USD', priceMinor: 1990n, text: '19.9' });
  refused(() => checkPrice({ amount: 19.9, currency: 'XYZ' }), 'INVALID_REQUEST', /^price\.currency must be one of /);
  refused(() => checkPrice({ amount: 19.999, currency: 'USD' }), 'INVALID_REQUEST', /more than 2 decimal places for USD/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecimalNumber, stringifyJson } from '../../../src/domain/json.ts';
import { formatMinor, formatMinorFixed, inexactAsNumber, isStorableMinor, MAX_MINOR, numberToDecimalText, parseDecimal } from '../../../src/domain/money.ts';

test('JSON numbers become exact minor units, never through float arithmetic', () => {
  assert.deepEqual(parseDecimal(numberToDecimalText(100.5), 2), { ok: true, minor: 10050n });
  assert.deepEqual(parseDecimal(numberToDecimalText(0.1 + 0.2), 2), { ok: false, reason: 'precision' }); // 0.30000000000000004
  assert.deepEqual(parseDecimal(numberToDecimalText(1e-7), 9), { ok: true, minor: 100n });
  assert.deepEqual(parseDecimal(numberToDecimalText(19.99), 2), { ok: true, minor: 1999n });
  assert.deepEqual(parseDecimal(numberToDecimalText(1e21), 2), { ok: true, minor: 10n ** 23n });
  assert.deepEqual(parseDecimal('12.3400', 2), { ok: true, minor: 1234n });
  assert.deepEqual(parseDecimal('12.345', 2), { ok: false, reason: 'precision' });
  for (const bad of ['', '-1', '1e5', '1,000', 'abc', '.5']) assert.equal(parseDecimal(bad, 2).ok, false, bad);
});

test('minor units print as plain decimals', () => {
  assert.equal(formatMinor(10050n, 2), '100.5');
  assert.equal(formatMinor(100n, 9), '0.0000001');
  assert.equal(formatMinor(5_000_000n, 6), '5');
  assert.equal(formatMinorFixed(10050n, 2), '100.50');
  assert.equal(formatMinorFixed(7n, 2), '0.07');
  assert.equal(numberToDecimalText(1.5e-10), '0.00000000015');
  assert.equal(numberToDecimalText(123e20), '12300000000000000000000');
});

test('amounts are JSON numbers written in plain decimal, never exponent notation', () => {
  const text = stringifyJson({ a: new DecimalNumber('0.000001'), b: [new DecimalNumber('1')], s: 'x\u0000dec:1', n: null, u: undefined });
  assert.equal(text, '{"a":0.000001,"b":[1],"s":"x\\u0000dec:1","n":null}');
  assert.deepEqual(JSON.parse(text).a, 0.000001);
  assert.throws(() => new DecimalNumber('1e-6'));
  assert.equal(stringifyJson({ a: [], b: {} }, 2), '{\n  "a": [],\n  "b": {}\n}');
});

test('18 decimals stay exact: parsed and printed to the last base unit, far past 2^53', () => {
  assert.deepEqual(parseDecimal('12.345678901234567891', 18), { ok: true, minor: 12_345_678_901_234_567_891n });
  assert.equal(formatMinor(12_345_678_901_234_567_891n, 18), '12.345678901234567891');
  assert.equal(formatMinor(1n, 18), '0.000000000000000001');
  assert.equal(formatMinorFixed(10n ** 18n, 18), '1.000000000000000000');
  assert.deepEqual(parseDecimal('0.0000000000000000001', 18), { ok: false, reason: 'precision' });
  // The one range rule for every amount.
  assert.equal(isStorableMinor(MAX_MINOR), true);
  assert.equal(isStorableMinor(MAX_MINOR + 1n), false);
  assert.equal(isStorableMinor(-1n), false);
  assert.equal(isStorableMinor(2n ** 64n), true);
});

test('an amount a double cannot carry is named for its _exact string; the others are not', () => {
  for (const exact of ['100.5', '0.000001', '12.345678', '999999999999999', '0.000000000000000001', '9007199254740992', '0.1234567890123'])
    assert.equal(inexactAsNumber(exact), undefined, exact);
  for (const inexact of ['12.345678901234567891', '9007199254740993', '20000.000000000000000123', '1.000000000000000001'])
    assert.equal(inexactAsNumber(inexact), inexact, inexact);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecimalNumber, stringifyJson } from '../../../src/domain/json.ts';
import { formatMinor, formatMinorFixed, numberToDecimalText, parseDecimal } from '../../../src/domain/money.ts';

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

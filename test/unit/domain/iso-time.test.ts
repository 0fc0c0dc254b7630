// The fetch reply's timestamps come from isoUtc instead of Date#toISOString: same text for every millisecond it covers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoUtc } from '../../../src/domain/iso-time.ts';

test('isoUtc writes what Date#toISOString writes: random instants, day, month, leap-year and century edges', () => {
  const samples: number[] = [0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2100, 1, 28, 12), Date.UTC(2100, 2, 1), Date.UTC(2024, 11, 31, 23, 59, 59, 999), Date.UTC(2025, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999)];
  for (let i = 0; i < 200_000; i++) samples.push(Math.floor(Math.random() * 253_402_300_800_000));
  for (let d = 0; d < 3000; d++) samples.push(Date.UTC(2024, 0, 1) + d * 86_400_000 + (d % 1000));
  for (const ms of samples) assert.equal(isoUtc(ms), new Date(ms).toISOString(), String(ms));
});

test('outside 1970–9999 and for fractions it defers to Date (and throws like it for invalid times)', () => {
  for (const ms of [-1, -86_400_001, 253_402_300_800_000, 1.5, Date.UTC(1969, 6, 20, 20, 17)]) assert.equal(isoUtc(ms), new Date(ms).toISOString());
  assert.throws(() => isoUtc(Number.NaN), RangeError);
});

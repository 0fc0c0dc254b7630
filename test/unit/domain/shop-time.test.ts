// Times as the shop reads them: its zone, 12-hour clock, the year only when it is not this year's;
// its days start at its own midnight, also across a daylight-saving change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTimeZone, shopTime } from '../../../src/domain/shop-time.ts';

const NOW = Date.parse('2026-11-28T07:48:00Z');

test('a time reads "28 Nov, 1:18 pm" in Kolkata, with the year only when it is another', () => {
  const kolkata = shopTime('Asia/Kolkata', () => NOW);
  assert.equal(kolkata.format(NOW), '28 Nov, 1:18 pm');
  assert.equal(kolkata.format(Date.parse('2026-11-28T18:40:00Z')), '29 Nov, 12:10 am');
  assert.equal(kolkata.format(Date.parse('2025-12-31T20:00:00Z')), '1 Jan, 1:30 am', "Kolkata's New Year is already this year");
  assert.equal(kolkata.format(Date.parse('2025-06-01T06:30:00Z')), '1 Jun 2025, 12:00 pm');
  assert.equal(kolkata.format(null), '—');
  assert.equal(shopTime('UTC', () => NOW).format(NOW), '28 Nov, 7:48 am');
});

test("the shop's day starts at its midnight, also on a daylight-saving day", () => {
  const kolkata = shopTime('Asia/Kolkata', () => NOW);
  assert.equal(new Date(kolkata.startOfDay(NOW)).toISOString(), '2026-11-27T18:30:00.000Z');
  assert.equal(new Date(kolkata.dayStart('2026-11-30', 1)!).toISOString(), '2026-11-30T18:30:00.000Z', 'the day after the 30th: 1 Dec');
  assert.equal(kolkata.dayStart('2026-02-30'), undefined);
  assert.equal(kolkata.dayStart('yesterday'), undefined);
  const newYork = shopTime('America/New_York', () => NOW);
  assert.equal(new Date(newYork.dayStart('2026-03-08')!).toISOString(), '2026-03-08T05:00:00.000Z', 'EST at midnight, EDT from 2 am');
  assert.equal(new Date(newYork.dayStart('2026-11-01')!).toISOString(), '2026-11-01T04:00:00.000Z', 'EDT at midnight, EST from 2 am');
  assert.equal(new Date(newYork.startOfDay(Date.parse('2026-07-04T03:59:00Z'))).toISOString(), '2026-07-03T04:00:00.000Z');
});

test('zone names: IANA names are known, anything else is not', () => {
  assert.equal(isTimeZone('Asia/Kolkata'), true);
  assert.equal(isTimeZone('UTC'), true);
  assert.equal(isTimeZone('India/Mumbai'), false);
  assert.equal(isTimeZone(''), false);
});

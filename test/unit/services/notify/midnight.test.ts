import assert from 'node:assert/strict';
import { test } from 'node:test';
import { midnight } from '../../../../src/services/notify/bot.ts';

test('/today counts from midnight in the configured time zone', () => {
  const now = Date.parse('2026-11-26T03:30:00.000Z');
  assert.equal(new Date(midnight(now, 'UTC')).toISOString(), '2026-11-26T00:00:00.000Z');
  // 09:00 in Kolkata (UTC+5:30): its midnight was 18:30 UTC the day before.
  assert.equal(new Date(midnight(now, 'Asia/Kolkata')).toISOString(), '2026-11-25T18:30:00.000Z');
  // 22:30 the day before in New York (UTC−5).
  assert.equal(new Date(midnight(now, 'America/New_York')).toISOString(), '2026-11-25T05:00:00.000Z');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completeListing, isSeen, listFrom, markSeen, readCursor, startCursor } from '../../../../src/methods/tron/cursor.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = 1_700_000_000_000;

test('first start looks back the configured window, listing from before it by the overlap', () => {
  const c = startCursor(NOW, 24 * HOUR);
  assert.equal(c.watermark, NOW - 24 * HOUR);
  assert.equal(listFrom(c, 5 * MIN), NOW - 24 * HOUR - 5 * MIN);
});

test('an ascending listing advances the watermark; ids inside the overlap stay remembered', () => {
  let c = startCursor(NOW, HOUR);
  c = markSeen(c, 'a', NOW - 30 * MIN, 5 * MIN, true);
  c = markSeen(c, 'b', NOW - 10 * MIN, 5 * MIN, true);
  c = markSeen(c, 'c', NOW - 7 * MIN, 5 * MIN, true);
  assert.equal(c.watermark, NOW - 7 * MIN);
  // a is older than watermark - overlap: it will not be listed again, so it is forgotten.
  assert.deepEqual(Object.keys(c.seen).sort(), ['b', 'c']);
  assert.ok(isSeen(c, 'b') && !isSeen(c, 'a'));
});

test('out-of-order items keep the watermark until the listing completes', () => {
  let c = startCursor(NOW, HOUR);
  c = markSeen(c, 'new', NOW - MIN, 5 * MIN, false);
  assert.equal(c.watermark, NOW - HOUR);
  c = markSeen(c, 'old', NOW - 50 * MIN, 5 * MIN, false);
  assert.ok(isSeen(c, 'new') && isSeen(c, 'old'));
  c = completeListing(c, NOW - MIN, 5 * MIN);
  assert.equal(c.watermark, NOW - MIN);
  assert.deepEqual(Object.keys(c.seen), ['new']);
});

test('a completed empty listing leaves the cursor as it was', () => {
  const c = startCursor(NOW, HOUR);
  assert.equal(completeListing(c, undefined, 5 * MIN), c);
});

test('only a cursor this version wrote is read back', () => {
  const c = markSeen(startCursor(NOW, HOUR), 'x', NOW, MIN, true);
  assert.deepEqual(readCursor(JSON.parse(JSON.stringify(c))), c);
  assert.equal(readCursor(undefined), undefined);
  assert.equal(readCursor({ watermark: 5, seen: {} }), undefined);
  assert.equal(readCursor({ v: 1, watermark: 'x', seen: {} }), undefined);
  assert.equal(readCursor({ v: 1, watermark: 5, seen: [] }), undefined);
});

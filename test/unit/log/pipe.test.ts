import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pipeDestination } from '../../../src/log/pipe.ts';
import type { StdStream } from '../../../src/stdio.ts';

/** A stderr whose reader the test controls: how far behind it is, whether it is gone. */
function fakeStderr() {
  const writes: string[] = [];
  const s: StdStream & { broken: boolean; queued: number; writes: string[] } = { broken: false, queued: 0, writes, write: (t) => void writes.push(t), flushed: async () => true };
  return s;
}
const time = () => ',"time":"2026-01-01T00:00:00.000Z"';

test('pipe log: lines are handed over together (per batch, on flushSync), never one write per line', () => {
  const s = fakeStderr();
  const d = pipeDestination(s, time);
  d.write('{"a":1}\n');
  d.write('{"a":2}\n');
  assert.equal(s.writes.length, 0, 'gathered, not written yet');
  d.flushSync();
  assert.deepEqual(s.writes, ['{"a":1}\n{"a":2}\n']);
  d.write('x'.repeat(20_000) + '\n');
  assert.equal(s.writes.length, 2, 'a full batch goes at once');
});

test('pipe log: a reader that is gone gets nothing more, and nothing throws', () => {
  const s = fakeStderr();
  const d = pipeDestination(s, time);
  d.write('{"a":1}\n');
  s.broken = true;
  d.flushSync();
  d.write('{"a":2}\n');
  d.flushSync();
  assert.equal(s.writes.length, 0);
});

test('pipe log: a reader more than 8 MB behind loses lines, counted in a warning once it catches up', () => {
  const s = fakeStderr();
  const d = pipeDestination(s, time);
  s.queued = 9 * 1024 * 1024;
  for (let i = 0; i < 3; i++) d.write(`{"a":${i}}\n`);
  d.flushSync();
  d.write('{"a":3}\n');
  d.flushSync();
  assert.equal(s.writes.length, 0);
  s.queued = 0;
  d.write('{"a":4}\n');
  d.flushSync();
  assert.deepEqual(s.writes.map((w) => JSON.parse(w.split('\n')[0]!)), [{ level: 'warn', time: '2026-01-01T00:00:00.000Z', dropped: 4, msg: 'log lines dropped: the reader of stderr fell behind' }, { a: 4 }]);
});

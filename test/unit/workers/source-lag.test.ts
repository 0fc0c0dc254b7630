import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHeadWatch } from '../../../src/domain/head-watch.ts';
import { isDown, SourceHealth } from '../../../src/workers/source-health.ts';

test('head watch: a new head is seen when it first appears; a head that stops moving keeps its first sighting', () => {
  const w = createHeadWatch();
  assert.deepEqual(w.observe(100, 1_000), { head: 100, seenAt: 1_000 });
  assert.deepEqual(w.observe(100, 5_000), { head: 100, seenAt: 1_000 }, 'stuck: the sighting does not move');
  assert.deepEqual(w.observe(99, 6_000), { head: 100, seenAt: 1_000 }, 'an older head is no news');
  assert.deepEqual(w.observe(101, 7_000), { head: 101, seenAt: 7_000 });
});

test('source health: lag counts from the position caught up to; past maxLag the source is "lagging" and not ready', () => {
  let now = 1_000_000;
  const h = new SourceHealth('SOL', 'solana:SOL:x', { now: () => now }, 120_000);
  assert.equal(h.lagMs(), undefined, 'not running: no lag');
  h.started();
  h.reporter.interval(10_000);
  now += 3_000;
  assert.equal(h.lagMs(), 3_000, 'nothing caught up yet: since the start');
  h.reporter.ok();
  h.reporter.caughtUp!(now - 1_000);
  assert.equal(h.lagMs(), 1_000);
  assert.equal(h.status().state, 'ok');
  assert.equal(h.status().lag_seconds, 1);
  assert.equal(h.status().max_lag_seconds, 120);
  // Cycles keep completing, the position does not move (a stuck head).
  for (let i = 0; i < 13; i++) {
    now += 10_000;
    h.reporter.ok();
  }
  assert.equal(h.lagMs(), 131_000);
  assert.equal(h.status().state, 'lagging');
  assert.equal(isDown(h.status()), true);
  h.reporter.caughtUp!(now);
  assert.equal(h.status().state, 'ok');
  // A new leadership: an old position says nothing about the upstream since.
  h.stopped();
  now += 600_000;
  h.started();
  assert.equal(h.lagMs(), 0);
});

test('source health: a source that reports no position lags by its last completed cycle; no limit, never "lagging"', () => {
  let now = 0;
  const h = new SourceHealth('sandbox', 'sandbox', { now: () => now });
  h.started();
  h.reporter.ok();
  now += 500_000;
  assert.equal(h.lagMs(), 500_000);
  assert.notEqual(h.status().state, 'lagging');
  assert.equal(h.status().max_lag_seconds, undefined);
});

test('head watch: a pass up to a trailing endpoint\'s head is caught up as of when a head that high was first seen anywhere', () => {
  const w = createHeadWatch();
  assert.equal(w.asOf(5), undefined);
  w.observe(100, 1_000); // endpoint A
  w.observe(90, 1_500); // endpoint B, behind: no news
  w.observe(110, 2_000); // A again
  w.observe(120, 3_000);
  assert.equal(w.asOf(120), 3_000);
  assert.equal(w.asOf(105), 2_000, 'B reached 105: A showed that much at 2 s');
  assert.equal(w.asOf(90), 1_000, 'older than anything seen: the first sighting');
  assert.equal(w.asOf(130), 3_000, 'beyond the newest: the newest sighting');
});

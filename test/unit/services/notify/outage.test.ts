import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { showAmountWith } from '../../../../src/app/notify.ts';
import { migrate, openDatabase } from '../../../../src/db/open.ts';
import { silentLogger } from '../../../../src/log/index.ts';
import { builtinMethods } from '../../../../src/methods/registry.ts';
import { createNotificationFeed } from '../../../../src/services/notify/feed.ts';
import { createObservations } from '../../../../src/services/notify/observe.ts';
import { createNotificationQueue } from '../../../../src/services/notify/queue.ts';
import { systemRandom } from '../../../../src/system.ts';
import { SourceHealth } from '../../../../src/workers/source-health.ts';

test('an upstream down for 60 s (simulated) is one "Problem" and one "Recovered", the recovery only after a cycle completes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-outage-'));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  await migrate(db);
  t.after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  let now = Date.parse('2026-11-28T10:00:00.000Z');
  const clock = { now: () => now };
  const health = new SourceHealth('USDT_TRC20', 'tron:USDT_TRC20', clock);
  const queue = createNotificationQueue({ db, clock, random: systemRandom });
  const observe = createObservations({ db, clock, sources: () => [health], upiSilence: null });
  const feed = createNotificationFeed({ db, clock, random: systemRandom, log: silentLogger(), show: showAmountWith(builtinMethods), queue, channels: [{ channel: 'telegram', targets: ['1001'], kinds: new Set(['source.down']) }], observe, unmatched: { below: new Map(), burst: 5, periodMs: 3_600_000 } });
  const told = async () => (await db.selectFrom('notifications').select(['text']).orderBy('created_at').orderBy('id').execute()).map((r) => r.text.split(':')[0]);

  // The source as runLoop drives it: a 3 s interval; after failure k it waits min(60 s, 1 s × 2^(k−1)) (runtime/loop.ts, jitter left out).
  const INTERVAL = 3_000;
  health.started();
  health.reporter.interval(INTERVAL);
  let down = false;
  let failures = 0;
  let nextCycle = now;
  let okAfterOutage: number | undefined;
  const cycle = () => {
    if (down) {
      failures++;
      const wait = Math.min(60_000, 1_000 * 2 ** (failures - 1));
      health.reporter.failed('connect ECONNREFUSED 127.0.0.1:9', wait);
      nextCycle = now + wait;
    } else {
      failures = 0;
      health.reporter.ok();
      nextCycle = now + INTERVAL;
    }
  };
  const start = now;
  const upAt = start + 30_000 + 60_000;
  // The feed looks every second, as workers/notify.ts runs it; 3 simulated minutes in all.
  for (; now <= start + 180_000; now += 1_000) {
    down = now >= start + 30_000 && now < upAt;
    if (now >= nextCycle) {
      cycle();
      if (!down && okAfterOutage === undefined && now >= upAt) okAfterOutage = now;
    }
    const before = (await told()).length;
    await feed.tick();
    const after = await told();
    if (after.length > before && after.at(-1) === 'Recovered') assert.ok(okAfterOutage !== undefined && now >= okAfterOutage, `"Recovered" at +${(now - start) / 1000} s, before any cycle completed`);
  }
  assert.deepEqual(await told(), ['Problem', 'Recovered']);
});

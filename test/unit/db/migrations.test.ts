import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Migrator } from 'kysely';
import * as m001 from '../../../src/db/migrations/001_initial.ts';
import * as m007 from '../../../src/db/migrations/007_mailbox_oauth.ts';
import { migrate, openDatabase } from '../../../src/db/open.ts';

test('a database that already ran a later-numbered migration still takes an earlier one that landed after it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-migrate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  t.after(() => db.destroy());
  // What a shop upgraded before 006 landed has: 001 and 007, and events written meanwhile.
  const before = await new Migrator({ db, provider: { getMigrations: async () => ({ '001_initial': m001, '007_mailbox_oauth': m007 }) } }).migrateToLatest();
  assert.equal(before.error, undefined);
  for (const [i, id] of ['evt_b', 'evt_a', 'evt_c'].entries()) {
    await db.insertInto('events').values({ id, merchant_id: 'm', intent_id: null, type: 'intent.expired', body: '{}', status: 'delivered', attempts: 1, next_attempt_at: 0, locked_until: 0, last_error: null, created_at: 1000 + (i === 2 ? 1 : 0), delivered_at: null }).execute();
  }
  const applied = await migrate(db);
  assert.ok(applied.includes('006_api'), applied.join());
  assert.ok(!applied.includes('007_mailbox_oauth'));
  // Existing events are numbered in written (created_at) order; the counter continues after them.
  const rows = await db.selectFrom('events').select(['id', 'seq']).orderBy('seq').execute();
  assert.deepEqual(rows, [{ id: 'evt_a', seq: 1 }, { id: 'evt_b', seq: 2 }, { id: 'evt_c', seq: 3 }]);
  assert.deepEqual(await db.selectFrom('sequences').selectAll().execute(), [{ name: 'events', value: 3 }]);
  assert.deepEqual(await migrate(db), []);
});

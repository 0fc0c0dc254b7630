// The store of rotated mailbox refresh tokens on a real SQLite file: sealed at rest, used while
// the config still names the token it replaced, and overridden by a new token in the config.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { migrate, openDatabase } from '../../src/db/open.ts';
import { Keys } from '../../src/services/keys.ts';

/** Keys already resolved, as the app's keyring hands them out. */
const ring = (keys: Keys) => ({ current: keys, get: async () => keys });
import { createMailboxTokenStore } from '../../src/services/mailbox-tokens.ts';
import { systemRandom } from '../../src/system.ts';

test('rotated refresh tokens: sealed, keyed per mailbox, and a new configured token wins', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-mailbox-tokens-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'payd.sqlite');
  const db = openDatabase(file);
  t.after(() => db.destroy());
  await migrate(db);
  const master = systemRandom.bytes(32);
  const store = createMailboxTokenStore({ db, keys: ring(new Keys(master)), clock: { now: () => 1 }, random: systemRandom });

  assert.equal(await store.current('a', 'rt-config-1'), 'rt-config-1', 'nothing stored: the configured token');
  await store.save('a', 'rt-config-1', 'rt-rotated-2');
  await store.save('a', 'rt-config-1', 'rt-rotated-3'); // a later rotation replaces the earlier one
  assert.equal(await store.current('a', 'rt-config-1'), 'rt-rotated-3');
  assert.equal(await store.current('b', 'rt-config-1'), 'rt-config-1', 'another mailbox has its own');
  assert.equal(await store.current('a', 'rt-config-new'), 'rt-config-new', 'the operator put a new token in the config');

  // Another master key cannot read it, and the file never holds it in clear.
  const other = createMailboxTokenStore({ db, keys: ring(new Keys(systemRandom.bytes(32))), clock: { now: () => 1 }, random: systemRandom });
  assert.equal(await other.current('a', 'rt-config-1'), 'rt-config-1', 'the configured-token hash is keyed too');
  await db.destroy();
  for (const f of [file, `${file}-wal`]) {
    try {
      const bytes = readFileSync(f);
      assert.ok(!bytes.includes('rt-rotated-3') && !bytes.includes('rt-config-1'), `${f} holds a token in clear`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
});

// A shop set up by the first version (a configured base64 master key, hashed then) keeps
// working after the upgrade that made the configured key and the key file one derivation.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Secret } from '../../src/config/secret.ts';
import { migrate, openDatabase } from '../../src/db/open.ts';
import { Keys, createKeyring } from '../../src/services/keys.ts';
import { systemClock, systemRandom } from '../../src/system.ts';

test('a database sealed under the first version’s derivation of a configured key keeps its key; another key is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-key-upgrade-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  t.after(() => db.destroy());
  await migrate(db);

  const text = randomBytes(32).toString('base64'); // what the recipe in docs/operations.md writes
  const firstVersion = new Keys(createHash('sha256').update(text).digest());
  await db
    .insertInto('merchants')
    .values({ id: 'm1', name: 'Old shop', secret_hash: firstVersion.hashSecret('sk_live_old'), webhook_url: null, webhook_secret_sealed: firstVersion.seal('whsec_old', systemRandom), webhook_secret_prev_sealed: null, webhook_secret_prev_until: null, status: 'active', created_at: 1, updated_at: 1 })
    .execute();

  const ring = (configured: string) => createKeyring({ db, configured: new Secret(configured), keyFile: join(dir, 'unused.key'), random: systemRandom, clock: systemClock });

  // Another key on the not-yet-fingerprinted database is refused, and nothing is remembered.
  await assert.rejects(ring(randomBytes(32).toString('base64')).get(), /not the key this database was set up with/);
  assert.equal((await db.selectFrom('settings').selectAll().execute()).length, 0);

  for (let run = 0; run < 2; run++) {
    const keys = await ring(text).get();
    assert.equal(keys.unseal((await db.selectFrom('merchants').select('webhook_secret_sealed').executeTakeFirstOrThrow()).webhook_secret_sealed), 'whsec_old');
    assert.ok(keys.verifySecret('sk_live_old', firstVersion.hashSecret('sk_live_old')), 'the old client secret still verifies');
  }
  // Once fingerprinted, another key meets the ordinary refusal.
  await assert.rejects(ring(randomBytes(32).toString('base64')).get(), /not the one this database was set up with/);
});

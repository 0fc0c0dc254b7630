// The API's hot path on SQLite stays as lean with bigint amounts of any size as it was with
// integers: a create is three statements (the order look-up, one reservation, the insert), a
// fetch is one, and a crowded window adds two (one read of the held amounts, the next
// reservation), whatever the decimals. The only added work
// is converting amounts at the store's edge (db/amounts.ts), which this counts instead of timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIntentStore } from '../../../src/db/intent-store.ts';
import { kyselyOver, migrate, openSqlite } from '../../../src/db/open.ts';
import { pendingIntent } from '../../helpers/intent.ts';

test('a create is three statements and a fetch one, for 2 and 18 decimals alike', async (t) => {
  // In memory: the fetch then reads on the same connection, so its statements are counted too.
  const sqlite = openSqlite(':memory:');
  const db = kyselyOver(sqlite);
  t.after(() => db.destroy());
  await migrate(db);
  await db.insertInto('merchants').values({ id: 'm', name: 'Shop', secret_hash: 'h', webhook_url: null, webhook_secret_sealed: 's', webhook_secret_prev_sealed: null, webhook_secret_prev_until: null, secret_prev_hash: null, secret_prev_until: null, status: 'active', created_at: 1, updated_at: 1 }).execute();

  // Every run of a statement the store prepares.
  let runs = 0;
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((text: string) => {
    const stmt = prepare(text);
    for (const m of ['run', 'get', 'all'] as const) {
      const original = stmt[m].bind(stmt) as (...a: unknown[]) => unknown;
      (stmt as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
        runs++;
        return original(...a);
      };
    }
    return stmt;
  }) as typeof sqlite.prepare;
  const store = createIntentStore(db, sqlite);
  t.after(() => store.close());

  const now = Date.now();
  const create = (id: string, minor: bigint, step: bigint) =>
    store.write(async (w) => {
      runs = 0;
      assert.equal(await w.byOrder('m', id), undefined);
      const range = { method: 'UPI', receiver: 'shop@hdfcbank', from: minor, to: minor + 10n * step, step, skipMultiplesOf: 0n, intentId: id, reservedUntil: now + 60_000, now };
      const taken = await w.reserveFirst(range);
      await w.insert(pendingIntent(id, taken!, now, { merchantId: 'm', orderId: id }));
      return { taken, runs };
    });

  for (const [decimals, minor] of [[2, 49_937n], [18, 12_345_678_901_234_567_891n]] as const) {
    const first = await create(`first-${decimals}`, minor, 1n);
    assert.deepEqual(first, { taken: minor, runs: 3 }, `${decimals} decimals, a free amount`);
    const crowded = await create(`crowded-${decimals}`, minor, 1n);
    assert.deepEqual(crowded, { taken: minor + 1n, runs: 5 }, `${decimals} decimals, the first amount taken`);
    runs = 0;
    const fetched = await store.byId(`crowded-${decimals}`);
    assert.deepEqual([fetched?.payAmountMinor, runs], [minor + 1n, 1], `${decimals} decimals, a fetch`);
  }
});

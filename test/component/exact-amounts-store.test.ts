// Amounts in the stores (src/db/amounts.ts): an upgrade keeps every amount written before it,
// and amounts past 64 bits (18-decimal tokens above 9.2 units) are stored, compared in number
// order and summed exactly, on SQLite and on PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { amountFromDb, amountFromSum, amountSum, amountToDb } from '../../src/db/amounts.ts';
import { intentFromRow, intentToRow } from '../../src/db/intent-rows.ts';
import { migrate, openDatabase, type Db } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { pendingIntent } from '../helpers/intent.ts';
import { forEachStore } from '../helpers/stores.ts';

const BIG = 12_345_678_901_234_567_891n; // 12.345678901234567891 of an 18-decimal token: past 2^63
const HUGE = 10n ** 37n + 5n;

forEachStore((store) => {
  async function open(t: { after: (fn: () => unknown) => void }): Promise<Db> {
    if (store.kind === 'postgres') {
      const db = openPostgres({ url: await store.database(), pool: 2, statementTimeoutMs: 0 });
      t.after(() => db.destroy());
      return db;
    }
    const dir = mkdtempSync(join(tmpdir(), 'payd-amounts-'));
    const db = openDatabase(join(dir, 'payd.sqlite'));
    t.after(async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    });
    return db;
  }

  test('amounts written before the upgrade keep their values; amounts past 64 bits are stored, ordered and summed exactly', async (t) => {
    const db = await open(t);
    await migrate(db, { upTo: '026_pricing' });
    // Rows as the previous version wrote them: integer minor units.
    await sql`INSERT INTO merchants (id, name, secret_hash, webhook_secret_sealed, created_at, updated_at) VALUES ('m1', 'Shop', 'h', 's', 1, 1)`.execute(db);
    await sql`INSERT INTO intents (id, merchant_id, order_id, method, amount_minor, pay_amount_minor, receiver, payment_uri, status, created_at, expires_at, updated_at)
      VALUES ('old', 'm1', 'o-old', 'UPI', 199900, 199901, 'shop@hdfcbank', 'upi://pay', 'pending', 1, 2, 1)`.execute(db);
    await sql`INSERT INTO amount_reservations (method, receiver, pay_amount_minor, intent_id, reserved_until) VALUES ('UPI', 'shop@hdfcbank', 199901, 'old', 9)`.execute(db);
    await sql`INSERT INTO payments (id, method, tx_ref, receiver, amount_minor, source, occurred_at, observed_at, status) VALUES ('pay_old', 'UPI', '412345678901', 'shop@hdfcbank', 199901, 'imap', 1, 1, 'unmatched')`.execute(db);
    await sql`INSERT INTO sandbox_transfers (method, receiver, amount_minor, tx_ref, created_at) VALUES ('UPI', 'shop@hdfcbank', 500, 'sbx-1', 1)`.execute(db);

    assert.ok((await migrate(db)).includes('027_exact_amounts'));
    const old = intentFromRow((await db.selectFrom('intents').selectAll().where('id', '=', 'old').executeTakeFirstOrThrow()));
    assert.deepEqual([old.amountMinor, old.payAmountMinor], [199_900n, 199_901n]);
    assert.equal(amountFromDb((await db.selectFrom('payments').select('amount_minor').executeTakeFirstOrThrow()).amount_minor), 199_901n);
    assert.equal(amountFromDb((await db.selectFrom('sandbox_transfers').select('amount_minor').executeTakeFirstOrThrow()).amount_minor), 500n);

    // Amounts of 18-decimal tokens, through the row mapping both stores' hot paths use.
    for (const [id, minor] of [['big', BIG], ['huge', HUGE]] as const) {
      await db.insertInto('intents').values(intentToRow(pendingIntent(id, minor, 1, { merchantId: 'm1', orderId: `o-${id}` }))).execute();
      await db.insertInto('amount_reservations').values({ method: 'UPI', receiver: 'shop@hdfcbank', pay_amount_minor: amountToDb(minor), intent_id: id, reserved_until: 9 }).execute();
    }
    const big = intentFromRow(await db.selectFrom('intents').selectAll().where('id', '=', 'big').executeTakeFirstOrThrow());
    assert.equal(big.payAmountMinor, BIG);
    // Number order, not text order ("199901" > "12345…" as text): the candidates' and the pool's range reads.
    const inRange = await db
      .selectFrom('amount_reservations')
      .select('pay_amount_minor')
      .where('pay_amount_minor', '>=', amountToDb(199_901n))
      .where('pay_amount_minor', '<=', amountToDb(BIG))
      .orderBy('pay_amount_minor')
      .execute();
    assert.deepEqual(inRange.map((r) => amountFromDb(r.pay_amount_minor)), [199_901n, BIG]);
    const exact = await db.selectFrom('intents').select('id').where('pay_amount_minor', '=', amountToDb(HUGE)).execute();
    assert.deepEqual(exact, [{ id: 'huge' }]);
    // Sums (the console's and the bot's totals) past 64 bits, to the last unit.
    const total = await db.selectFrom('intents').select(amountSum(db, sql.ref('pay_amount_minor')).as('sum')).executeTakeFirstOrThrow();
    assert.equal(amountFromSum(total.sum), 199_901n + BIG + HUGE);
    const none = await db.selectFrom('intents').select(amountSum(db, sql.ref('pay_amount_minor')).as('sum')).where('id', '=', 'nothing').executeTakeFirstOrThrow();
    assert.equal(amountFromSum(none.sum), 0n);
  });
});

test('the stores refuse an amount outside the one range instead of rounding it', () => {
  assert.throws(() => amountToDb(-1n), RangeError);
  assert.throws(() => amountToDb(10n ** 40n), RangeError);
  assert.equal(amountToDb(10n ** 40n - 1n), '9'.repeat(40));
  assert.equal(amountFromDb(amountToDb(BIG)), BIG);
});

import { sql } from 'kysely';
import { chosenColumns, intentFromRowIfAny, intentToRow } from './intent-rows.ts';
import type { IntentStore, IntentWriter, ReserveRange } from './intent-store.ts';
import { pgTransaction, type Db, type Tx } from './open.ts';
import { isRetryableConflict, isUniqueViolation } from './pg-errors.ts';
import { amountFromDb, amountToDb } from './amounts.ts';

/** Amounts of the window one reserving statement looks at (bounds its work on a wide window). */
const CHUNK_STEPS = 1024;

/**
 * One round trip: the free amounts of from..to in order (none held beyond `now` in this
 * statement's snapshot), then the first that no other transaction is reserving at this moment
 * (a transaction-scoped advisory lock, tried, never waited for: held to COMMIT/ROLLBACK; a hash
 * collision only passes over a free amount; the LIMIT over the ordered CTE tries candidates one
 * at a time, so one lock is taken, not one per free amount), then the upsert that takes it unless a create
 * committed it after the snapshot (the conflict's re-check). Before this, a create tried the
 * window one amount per round trip: under a burst of one price each create made 20-80 trips
 * and held its pooled connection for seconds, so queued creates timed out.
 * The lock key is the one earlier versions used, so nodes of both versions exclude each other.
 */
async function reserveInChunk(tx: Tx, r: ReserveRange, from: bigint, to: bigint): Promise<{ taken: bigint | null; picked: bigint | null; last: bigint | null }> {
  const [lo, hi, step, skip] = [amountToDb(from), amountToDb(to), amountToDb(r.step), amountToDb(r.skipMultiplesOf)];
  const { rows } = await sql<{ taken: string | null; picked: string | null; last: string | null }>`
    WITH free AS MATERIALIZED (
      SELECT g.amount FROM generate_series(${lo}::numeric, ${hi}::numeric, ${step}::numeric) AS g(amount)
      WHERE (${skip}::numeric = 0 OR g.amount % ${skip}::numeric <> 0) AND NOT EXISTS (
        SELECT 1 FROM amount_reservations h
        WHERE h.method = ${r.method}::text AND h.receiver = ${r.receiver}::text AND h.pay_amount_minor BETWEEN ${lo}::numeric AND ${hi}::numeric
          AND h.pay_amount_minor = g.amount AND h.reserved_until > ${r.now}::bigint)
      ORDER BY g.amount),
    picked AS MATERIALIZED (
      SELECT amount FROM free WHERE pg_try_advisory_xact_lock(hashtextextended(${`${r.method}|${r.receiver}|`}::text || amount::text, 0)) LIMIT 1),
    taken AS (
      INSERT INTO amount_reservations (method, receiver, pay_amount_minor, intent_id, reserved_until)
      SELECT ${r.method}::text, ${r.receiver}::text, amount, ${r.intentId}::text, ${r.reservedUntil}::bigint FROM picked
      ON CONFLICT (method, receiver, pay_amount_minor) DO UPDATE SET intent_id = excluded.intent_id, reserved_until = excluded.reserved_until
        WHERE amount_reservations.reserved_until <= ${r.now}::bigint
      RETURNING pay_amount_minor)
    SELECT (SELECT pay_amount_minor FROM taken) AS taken, (SELECT amount FROM picked) AS picked, (SELECT max(amount) FROM free) AS last`.execute(tx);
  const row = rows[0]!;
  const amount = (v: string | null | undefined) => (v === null || v === undefined ? null : amountFromDb(v));
  return { taken: amount(row.taken), picked: amount(row.picked), last: amount(row.last) };
}

/**
 * The intent hot path on PostgreSQL: plain Kysely queries, one READ COMMITTED transaction per
 * create. Concurrency across nodes rests on the unique indexes, not on a global lock:
 * - an amount reservation is an upsert whose conflicting row is locked and re-checked, so two
 *   creates never both hold one pay amount; an amount being reserved by another transaction
 *   at that moment (a transaction-scoped advisory lock) is skipped, not waited for, and the
 *   search of the window is one statement (reserveInChunk);
 * - two creates of one (merchant, order) both pass the lookup, one insert wins, the other
 *   meets intents_merchant_order, rolls back (its reservation too) and runs again, which now
 *   finds and returns the winner's intent.
 */
export function createPostgresIntentStore(db: Db): IntentStore {
  return {
    byId: async (id) => intentFromRowIfAny(await db.selectFrom('intents').selectAll().where('id', '=', id).executeTakeFirst()),
    // Run again (within a time budget) when another create of the order won the race (the
    // next run returns its intent) or PostgreSQL aborted the transaction to break a deadlock.
    write: (fn) => pgTransaction(db, (tx) => fn(writer(tx)), (err) => isUniqueViolation(err, 'intents_merchant_order') || isRetryableConflict(err)),
    close: () => {},
  };
}

function writer(tx: Tx): IntentWriter {
  return {
    byOrder: async (merchantId, orderId) => intentFromRowIfAny(await tx.selectFrom('intents').selectAll().where('merchant_id', '=', merchantId).where('order_id', '=', orderId).executeTakeFirst()),
    // Locked: two choices on one intent at once take turns, so neither's reservation is lost from its choices.
    byId: async (id) => intentFromRowIfAny(await tx.selectFrom('intents').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()),
    choose: async (intent) => {
      await tx.updateTable('intents').set({ ...chosenColumns(intent), updated_at: intent.updatedAt }).where('id', '=', intent.id).execute();
      return intent;
    },
    held: async (r) => {
      const rows = await tx
        .selectFrom('amount_reservations as r')
        .leftJoin('intents as i', 'i.id', 'r.intent_id')
        .select(['r.pay_amount_minor', 'i.merchant_id'])
        .where('r.method', '=', r.method)
        .where('r.receiver', '=', r.receiver)
        .where('r.pay_amount_minor', '>=', amountToDb(r.from))
        .where('r.pay_amount_minor', '<=', amountToDb(r.to))
        .where('r.reserved_until', '>', r.now)
        .execute();
      return { amounts: rows.map((row) => amountFromDb(row.pay_amount_minor)), byMerchant: rows.filter((row) => row.merchant_id === r.merchantId).length };
    },
    reserveFirst: async (r) => {
      for (let from = r.from; from <= r.to; ) {
        const chunkEnd = from + BigInt(CHUNK_STEPS - 1) * r.step;
        const to = chunkEnd < r.to ? chunkEnd : r.to;
        const row = await reserveInChunk(tx, r, from, to);
        if (row.taken !== null) return row.taken;
        // Past the one that a create committed after this statement's snapshot (it is held now),
        // or past every free one (all being reserved by other transactions), or past the chunk.
        from = (row.picked ?? row.last ?? to) + r.step;
      }
      return null;
    },
    insert: async (intent) => {
      await tx.insertInto('intents').values(intentToRow(intent)).execute();
    },
    soonestRelease: async (r) => {
      const row = await tx
        .selectFrom('amount_reservations')
        .select((eb) => eb.fn.min('reserved_until').as('at'))
        .where('method', '=', r.method)
        .where('receiver', '=', r.receiver)
        .where('pay_amount_minor', '>=', amountToDb(r.fromMinor))
        .where('pay_amount_minor', '<=', amountToDb(r.toMinor))
        .executeTakeFirst();
      return row?.at == null ? null : Number(row.at);
    },
  };
}

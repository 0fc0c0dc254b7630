import { sql } from 'kysely';
import type { Intent } from '../domain/intent.ts';
import { intentFromRow, intentToRow } from './intent-rows.ts';
import type { IntentStore, IntentWriter } from './intent-store.ts';
import type { IntentsTable } from './schema.ts';

const fromRow = (row: IntentsTable | undefined): Intent | undefined => (row ? intentFromRow(row) : undefined);
import type { Db, Tx } from './open.ts';
import { isUniqueViolation } from './postgres.ts';

/** Re-runs of a create whose order another node created at the same moment (one is enough; two for safety). */
const MAX_RERUNS = 2;

/**
 * The intent hot path on PostgreSQL: plain Kysely queries, one READ COMMITTED transaction per
 * create. Concurrency across nodes rests on the unique indexes, not on a global lock:
 * - an amount reservation is an upsert whose conflicting row is locked and re-checked, so two
 *   creates never both hold one pay amount; an amount being reserved by another transaction
 *   at that moment (a transaction-scoped advisory lock) is skipped, not waited for;
 * - two creates of one (merchant, order) both pass the lookup, one insert wins, the other
 *   meets intents_merchant_order, rolls back (its reservation too) and runs again, which now
 *   finds and returns the winner's intent.
 */
export function createPostgresIntentStore(db: Db): IntentStore {
  return {
    byId: async (id) => fromRow(await db.selectFrom('intents').selectAll().where('id', '=', id).executeTakeFirst()),
    async write(fn) {
      for (let run = 0; ; run++) {
        try {
          return await db.transaction().execute((tx) => fn(writer(tx as unknown as Tx)));
        } catch (err) {
          if (run < MAX_RERUNS && isUniqueViolation(err, 'intents_merchant_order')) continue;
          throw err;
        }
      }
    },
    close: () => {},
  };
}

function writer(tx: Tx): IntentWriter {
  return {
    byOrder: async (merchantId, orderId) => fromRow(await tx.selectFrom('intents').selectAll().where('merchant_id', '=', merchantId).where('order_id', '=', orderId).executeTakeFirst()),
    held: async (r) => {
      const rows = await tx
        .selectFrom('amount_reservations as r')
        .leftJoin('intents as i', 'i.id', 'r.intent_id')
        .select(['r.pay_amount_minor', 'i.merchant_id'])
        .where('r.method', '=', r.method)
        .where('r.receiver', '=', r.receiver)
        .where('r.pay_amount_minor', '>=', r.from)
        .where('r.pay_amount_minor', '<=', r.to)
        .where('r.reserved_until', '>', r.now)
        .execute();
      return { amounts: rows.map((row) => Number(row.pay_amount_minor)), byMerchant: rows.filter((row) => row.merchant_id === r.merchantId).length };
    },
    reserve: async (r) => {
      // An amount another create is reserving right now is passed over instead of waited for:
      // a burst of creates of one amount would otherwise queue on one row after another.
      // Held to COMMIT/ROLLBACK; a hash collision only skips a free amount.
      const key = `${r.method}|${r.receiver}|${r.payAmountMinor}`;
      const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) AS ok`.execute(tx);
      if (!rows[0]?.ok) return false;
      const res = await tx
        .insertInto('amount_reservations')
        .values({ method: r.method, receiver: r.receiver, pay_amount_minor: r.payAmountMinor, intent_id: r.intentId, reserved_until: r.reservedUntil })
        .onConflict((oc) =>
          oc
            .columns(['method', 'receiver', 'pay_amount_minor'])
            .doUpdateSet((eb) => ({ intent_id: eb.ref('excluded.intent_id'), reserved_until: eb.ref('excluded.reserved_until') }))
            .where('amount_reservations.reserved_until', '<=', r.now),
        )
        .executeTakeFirst();
      return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
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
        .where('pay_amount_minor', '>=', r.fromMinor)
        .where('pay_amount_minor', '<=', r.toMinor)
        .executeTakeFirst();
      return row?.at == null ? null : Number(row.at);
    },
  };
}

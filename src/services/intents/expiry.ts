import { writeTx, type Db } from '../../db/open.ts';
import { intentFromRow } from '../../db/intent-rows.ts';
import { intentView, type ViewContext } from '../../domain/intent.ts';
import type { Method } from '../../domain/methods.ts';
import type { Metrics } from '../../domain/ports.ts';
import { moneyOfOne } from './money.ts';
import type { Outbox } from '../events/outbox.ts';

/** Moves pending intents past expires_at to expired and emits intent.expired. Returns how many. */
export async function expireDue(deps: { db: Db; outbox: Outbox; metrics: Metrics; ctx: () => ViewContext }, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const { n, methods } = await writeTx(deps.db, async (tx) => {
      const ctx = deps.ctx();
      const rows = await tx.selectFrom('intents').selectAll().where('status', '=', 'pending').where('expires_at', '<=', ctx.now).limit(batch).execute();
      const methods: Method[] = [];
      for (const intent of rows.map(intentFromRow)) {
        const upd = await tx.updateTable('intents').set({ status: 'expired', updated_at: ctx.now }).where('id', '=', intent.id).where('status', '=', 'pending').executeTakeFirst();
        if (Number(upd.numUpdatedRows) === 0) continue;
        await deps.outbox.enqueue(tx, intent.merchantId, intent.id, 'intent.expired', intentView({ ...intent, status: 'expired', updatedAt: ctx.now }, ctx, await moneyOfOne(tx, intent)));
        if (intent.method !== null) methods.push(intent.method);
      }
      return { n: rows.length, methods };
    });
    // Counted once committed.
    for (const method of methods) deps.metrics.intentExpired(method);
    total += n;
    if (n < batch) break;
  }
  if (total > 0) deps.outbox.notify();
  return total;
}

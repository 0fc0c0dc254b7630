import { writeTx, type Db, type Tx } from '../../db/open.ts';
import { intentFromRow } from '../../db/intent-rows.ts';
import { PaydError } from '../../domain/errors.ts';
import { effectiveStatus, intentView, type Intent, type IntentView, type ViewContext } from '../../domain/intent.ts';
import { UUID_V4 } from '../../domain/ids.ts';
import type { Actor } from '../merchants/index.ts';
import type { Outbox } from '../events/outbox.ts';
import { moneyOfOne } from './money.ts';
import { audit } from '../../db/audit.ts';

export interface CancelOptions {
  /** Only an intent of this merchant (the API); the operator's CLI may cancel any. */
  merchantId?: string;
  actor: Actor;
}

/**
 * Cancels a pending intent: status `canceled`, `canceled_at`, an `intent.canceled` event,
 * all in one transaction. The pay_amount reservation is left alone, so it stays reserved
 * through the cooldown and a late payment is kept unmatched (reason `canceled`), never
 * credited to a newer intent. Against a settlement at the same moment exactly one wins:
 * both change the row only while it is still `pending`.
 */
export function createIntentCancellation(deps: { db: Db; outbox: Outbox; view: () => ViewContext }) {
  const notFound = (id: string) => new PaydError('INTENT_NOT_FOUND', `no payment intent ${JSON.stringify(id)}`);
  const notCancelable = (row: Intent, now: number) =>
    new PaydError('INTENT_NOT_CANCELABLE', `intent ${row.id} is ${effectiveStatus(row, now)}; only a pending intent can be canceled`);

  async function load(tx: Tx, intentId: string, o: CancelOptions): Promise<Intent> {
    const row = UUID_V4.test(intentId) ? await tx.selectFrom('intents').selectAll().where('id', '=', intentId.toLowerCase()).executeTakeFirst() : undefined;
    if (!row || (o.merchantId !== undefined && row.merchant_id !== o.merchantId)) throw notFound(intentId);
    return intentFromRow(row);
  }

  return {
    async cancel(intentId: string, o: CancelOptions): Promise<IntentView> {
      const { row, changed } = await writeTx(deps.db, async (tx) => {
        const ctx = deps.view();
        const current = await load(tx, intentId, o);
        // Canceling again answers with the intent unchanged.
        if (current.status === 'canceled') return { row: current, changed: false };
        if (effectiveStatus(current, ctx.now) !== 'pending') throw notCancelable(current, ctx.now);
        const upd = await tx
          .updateTable('intents')
          .set({ status: 'canceled', canceled_at: ctx.now, updated_at: ctx.now })
          .where('id', '=', current.id)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (Number(upd.numUpdatedRows) !== 1) {
          // Someone else changed it between our read and write (a store without a global write lock).
          const now = await load(tx, intentId, o);
          if (now.status === 'canceled') return { row: now, changed: false };
          throw notCancelable(now, ctx.now);
        }
        const canceled: Intent = { ...current, status: 'canceled', canceledAt: ctx.now, updatedAt: ctx.now };
        await deps.outbox.enqueue(tx, current.merchantId, current.id, 'intent.canceled', intentView(canceled, ctx, await moneyOfOne(tx, canceled)));
        await audit(tx, { at: ctx.now, actor: o.actor, action: 'intent.cancel', subject: current.id });
        return { row: canceled, changed: true };
      });
      if (changed) deps.outbox.notify([row.id]);
      return intentView(row, deps.view(), await moneyOfOne(deps.db, row));
    },
  };
}

export type IntentCancellation = ReturnType<typeof createIntentCancellation>;

import { TxConflict, writeTx, type Tx } from '../../db/open.ts';
import { amountFromDb } from '../../db/amounts.ts';
import { intentFromRow } from '../../db/intent-rows.ts';
import { PaydError } from '../../domain/errors.ts';
import { chosenIntent, type Intent } from '../../domain/intent.ts';
import type { PaymentReason } from '../../domain/payment-policy.ts';
import type { LedgerContext } from './deps.ts';
import { heldEvent, settle } from './settle.ts';
import { audit } from '../../db/audit.ts';

/** What the merchant or operator does with a held payment. */
export type HeldAction = (input: { intent: Intent; transactionHash: string; actor: string }) => Promise<{ changed: boolean }>;

/** The rows of one transaction attributed to an intent (TRON rows share their transaction id). */
async function rowsOf(tx: Tx, intentId: string, transactionHash: string) {
  return tx
    .selectFrom('payments')
    .selectAll()
    .where('intent_id', '=', intentId)
    .where((eb) => eb.or([eb('tx_ref', '=', transactionHash), eb('tx_hash', '=', transactionHash)]))
    .where('status', 'in', ['matched', 'held', 'refunded'])
    .execute();
}

const notAcceptable = (why: string) => new PaydError('PAYMENT_NOT_ACCEPTABLE', why);

/**
 * The merchant (or operator) accepts a held payment: credited, and the intent settles through
 * the same steps as an automatic settlement (one transaction, one payment.success with
 * `accepted: true`). Against an automatic settlement at the same moment one wins: both change
 * the intent only from the state they read. Idempotent: accepting the payment that settled
 * the intent answers the same.
 */
export function acceptHeld(deps: LedgerContext): HeldAction {
  return async (input) => {
    const result = await writeTx(deps.db, async (tx) => {
      const intent = intentFromRow(await tx.selectFrom('intents').selectAll().where('id', '=', input.intent.id).executeTakeFirstOrThrow());
      const rows = await rowsOf(tx, intent.id, input.transactionHash);
      if (rows.length === 0) throw notAcceptable(`no payment ${input.transactionHash} is attributed to intent ${intent.id}`);
      if (intent.status === 'settled' && rows.some((r) => r.id === intent.paymentId || r.status === 'matched')) return { changed: false };
      const held = rows.filter((r) => r.status === 'held');
      if (held.length === 0) throw notAcceptable(`payment ${input.transactionHash} of intent ${intent.id} is ${rows[0].status === 'refunded' ? 'marked refunded' : 'not held'}`);
      if (intent.status === 'settled') throw notAcceptable(`intent ${intent.id} is already settled by payment ${intent.transactionHash ?? '(unknown)'}; refund ${input.transactionHash} instead`);
      if (held.length > 1) throw notAcceptable(`transaction ${input.transactionHash} carried ${held.length} held payments for intent ${intent.id}`);
      const row = held[0];
      const now = deps.clock.now();
      const upd = await tx.updateTable('payments').set({ status: 'matched' }).where('id', '=', row.id).where('status', '=', 'held').executeTakeFirst();
      if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`payment ${row.id}`);
      const credited = (await tx.selectFrom('payments').select('amount_minor').where('intent_id', '=', intent.id).where('status', '=', 'matched').execute()).reduce((sum, r) => sum + amountFromDb(r.amount_minor), 0n);
      const short = intent.payAmountMinor - credited;
      const settledBy = input.actor.startsWith('api:') ? 'merchant' : 'operator';
      const difference = short > 0n ? { underpaidByMinor: short } : short < 0n ? { overpaidByMinor: -short } : {};
      await settle(deps, tx, intent, row.id, { txRef: row.tx_ref, txHash: row.tx_hash ?? undefined }, now, {}, { accepted: true, alreadyCounted: true, settledBy, late: row.reason === 'late' || row.reason === 'quote_expired', ...difference });
      await audit(tx, { at: now, actor: input.actor, action: 'payment.accept', subject: row.id, details: { intent_id: intent.id, tx_ref: row.tx_ref, was: row.reason } });
      return { changed: true };
    });
    if (result.changed) {
      deps.outbox.notify([input.intent.id]);
      deps.metrics.intentSettled(chosenIntent(input.intent).method);
      deps.log.info('held payment accepted', { intent_id: input.intent.id, tx: input.transactionHash, actor: input.actor });
    }
    return result;
  };
}

/** The merchant says it returned a held payment: status refunded, event payment.refunded. payd moves no money. Idempotent. */
export function markRefunded(deps: LedgerContext): HeldAction {
  return async (input) => {
    const result = await writeTx(deps.db, async (tx) => {
      const rows = await rowsOf(tx, input.intent.id, input.transactionHash);
      if (rows.length === 0) throw notAcceptable(`no payment ${input.transactionHash} is attributed to intent ${input.intent.id}`);
      const held = rows.filter((r) => r.status === 'held');
      if (held.length === 0) {
        if (rows.every((r) => r.status === 'refunded')) return { changed: false };
        throw notAcceptable(`payment ${input.transactionHash} was credited to intent ${input.intent.id}; only a held payment can be marked refunded`);
      }
      const now = deps.clock.now();
      for (const row of held) {
        const upd = await tx.updateTable('payments').set({ status: 'refunded' }).where('id', '=', row.id).where('status', '=', 'held').executeTakeFirst();
        if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`payment ${row.id}`);
        const event = heldEvent(deps, input.intent, { txRef: row.tx_ref, txHash: row.tx_hash ?? undefined }, amountFromDb(row.amount_minor), (row.reason ?? 'underpaid') as PaymentReason);
        await deps.outbox.enqueue(tx, input.intent.merchantId, input.intent.id, 'payment.refunded', event);
        await audit(tx, { at: now, actor: input.actor, action: 'payment.refunded', subject: row.id, details: { intent_id: input.intent.id, tx_ref: row.tx_ref } });
      }
      // The intent's row changes too (updated_at), so the checkout's live status wakes up.
      await tx.updateTable('intents').set({ updated_at: now }).where('id', '=', input.intent.id).execute();
      return { changed: true };
    });
    if (result.changed) deps.outbox.notify([input.intent.id]);
    return result;
  };
}

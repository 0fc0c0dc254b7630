import { TxConflict, type Tx } from '../../db/open.ts';
import type { Intent } from '../../domain/intent.ts';
import { amountToDb } from '../../db/amounts.ts';
import type { ReceivedPayment, RejectedObservation } from '../../domain/payment.ts';
import type { Random } from '../../domain/ports.ts';

/** The rows the ledger writes beside the intent: payments and rejections. */

/** Keeps a rejection in the caller's transaction; false when its ref was already kept. */
export async function insertRejection(tx: Tx, observation: RejectedObservation): Promise<boolean> {
  const inserted = await tx
    .insertInto('rejections')
    .values({
      ref: observation.ref,
      source: observation.source,
      method: observation.method,
      reason: observation.reason,
      detail_json: observation.detail ? JSON.stringify(observation.detail) : null,
      raw: observation.raw ?? null,
      observed_at: observation.observedAt,
    })
    .onConflict((oc) => oc.column('ref').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export const newPaymentId = (random: Random) => `pay_${random.uuid().replace(/-/g, '')}`;

export function paymentRow(p: ReceivedPayment, id: string, txRef: string, amountMinor: bigint, evidence: Record<string, unknown> | undefined, note: string | undefined) {
  return {
    id,
    method: p.method,
    tx_ref: txRef,
    receiver: p.receiver,
    amount_minor: amountToDb(amountMinor),
    references_json: p.references?.length ? JSON.stringify(p.references) : null,
    source: p.source,
    occurred_at: p.occurredAt,
    observed_at: p.observedAt,
    status: 'unmatched' as const,
    reason: null,
    intent_id: null,
    evidence_json: jsonOrNull(evidence),
    note: note ?? null,
    tx_hash: p.txHash ?? null,
  };
}

/**
 * A payment of a transaction that can carry several (a TRON Transfer row) is already
 * accounted for when the whole transaction was recorded under its id with this amount:
 * by an operator's manual settlement, or before payd told rows apart.
 */
export async function recordedAsWholeTransaction(tx: Tx, p: ReceivedPayment): Promise<string | undefined> {
  if (p.txHash === undefined || p.txHash === p.txRef) return undefined;
  const row = await tx.selectFrom('payments').select('id').where('method', '=', p.method).where('tx_ref', '=', p.txHash).where('amount_minor', '=', amountToDb(p.amountMinor)).executeTakeFirst();
  return row?.id;
}

/** One more payment shown on the intent; the row must not have changed since it was read. */
export async function countPayment(tx: Tx, intent: Intent, now: number): Promise<void> {
  const upd = await tx
    .updateTable('intents')
    .set((eb) => ({ payment_count: eb('payment_count', '+', 1), updated_at: now }))
    .where('id', '=', intent.id)
    .where('status', '=', intent.status)
    .where('payment_count', '=', intent.paymentCount ?? 0)
    .executeTakeFirst();
  if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`intent ${intent.id}`);
}

export function parseEvidence(json: string | null): Record<string, unknown> {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export const jsonOrNull = (v: Record<string, unknown> | undefined): string | null => (v ? JSON.stringify(v) : null);

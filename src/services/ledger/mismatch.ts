import { createHash } from 'node:crypto';
import { amountFromDb } from '../../db/amounts.ts';
import type { Tx } from '../../db/open.ts';
import type { ReceivedPayment, RejectedObservation } from '../../domain/payment.ts';
import { parseEvidence } from './rows.ts';

/**
 * A reference already recorded, seen again: the same facts are a duplicate (a re-read, a
 * re-scan); other facts (amount, receiver, account) are never dropped silently, since one of
 * the two may be a genuine payment (a misread alert, an RRN collision between banks).
 */
export async function mismatchOf(tx: Tx, p: ReceivedPayment): Promise<{ existingId: string; rejection?: RejectedObservation }> {
  const existing = await tx.selectFrom('payments').select(['id', 'amount_minor', 'receiver', 'evidence_json']).where('method', '=', p.method).where('tx_ref', '=', p.txRef).executeTakeFirstOrThrow();
  const evidence = parseEvidence(existing.evidence_json);
  // A transaction split over several intents keeps its whole amount in the first row's evidence.
  const split = evidence.split as { transaction_total_minor?: unknown } | undefined;
  const recordedMinor = typeof split?.transaction_total_minor === 'string' ? BigInt(split.transaction_total_minor) : amountFromDb(existing.amount_minor);
  const recordedAccount = typeof evidence.accountMask === 'string' ? evidence.accountMask : undefined;
  const account = typeof p.evidence?.accountMask === 'string' ? p.evidence.accountMask : undefined;
  const differs: string[] = [];
  if (recordedMinor !== p.amountMinor) differs.push('amount');
  if (existing.receiver !== p.receiver) differs.push('receiver');
  if (recordedAccount !== undefined && account !== undefined && recordedAccount !== account) differs.push('account');
  if (differs.length === 0) return { existingId: existing.id };
  const facts = `${p.amountMinor}|${p.receiver}|${account ?? ''}`;
  return {
    existingId: existing.id,
    rejection: {
      source: p.source,
      method: p.method,
      // One rejection per observation: the mail it came from, else the reference with these facts.
      ref: p.origin?.ref ?? `${p.method}:${p.txRef}:mismatch:${createHash('sha256').update(facts).digest('hex').slice(0, 16)}`,
      reason: 'duplicate_reference_mismatch',
      detail: {
        tx_ref: p.txRef,
        differs,
        amount_minor: p.amountMinor.toString(),
        receiver: p.receiver,
        ...(account !== undefined ? { accountMask: account } : {}),
        recorded: { payment_id: existing.id, amount_minor: recordedMinor.toString(), receiver: existing.receiver, ...(recordedAccount !== undefined ? { accountMask: recordedAccount } : {}) },
        ...(p.evidence ? { evidence: p.evidence } : {}),
      },
      ...(p.origin?.raw ? { raw: p.origin.raw } : {}),
      observedAt: p.observedAt,
    },
  };
}

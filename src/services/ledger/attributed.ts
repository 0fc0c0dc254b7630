import type { Tx } from '../../db/open.ts';
import { attribute, type Credit } from '../../domain/attribution.ts';
import { amountToDb } from '../../db/amounts.ts';
import type { IngestOutcome, ReceivedPayment } from '../../domain/payment.ts';
import type { PaymentReason } from '../../domain/payment-policy.ts';
import { candidates } from './candidates.ts';
import type { IngestOptions, LedgerContext } from './deps.ts';
import { countPayment, jsonOrNull, newPaymentId, paymentRow } from './rows.ts';
import { heldEvent, settle } from './settle.ts';

/** The reason a credited row shows: what the merchant must look at first. */
const creditReason = (c: Credit): PaymentReason | null => (c.overpaidByMinor ? 'overpaid' : c.underpaidByMinor ? 'underpaid' : c.late ? 'late' : null);

/**
 * A payment just recorded (row `paymentId`, unmatched) attributed by domain/attribution.ts and
 * written as decided: left unmatched with its reason, held on its intent, or credited to one or
 * more intents (settling those it completes), in the caller's transaction.
 */
export async function applyAttribution(deps: LedgerContext, tx: Tx, p: ReceivedPayment, paymentId: string, options: IngestOptions): Promise<IngestOutcome> {
  const now = deps.clock.now();
  const decision = attribute(p, await candidates(tx, p, deps.policyOf(p.method)), { policy: deps.policyOf(p.method), skewMs: deps.skewMs });
  if (decision.kind === 'unmatched') {
    await tx.updateTable('payments').set({ reason: decision.reason, intent_id: decision.intentId ?? null }).where('id', '=', paymentId).execute();
    return { kind: 'unmatched', paymentId, reason: decision.reason };
  }
  if (decision.kind === 'hold') {
    await tx.updateTable('payments').set({ status: 'held', reason: decision.reason, intent_id: decision.intent.id }).where('id', '=', paymentId).execute();
    await countPayment(tx, decision.intent, now);
    await deps.outbox.enqueue(tx, decision.intent.merchantId, decision.intent.id, 'payment.held', heldEvent(deps, decision.intent, p, p.amountMinor, decision.reason));
    return { kind: 'held', paymentId, intentId: decision.intent.id, reason: decision.reason };
  }

  // One payment row per credited intent (the first is the row just inserted).
  const parts = decision.credits.length;
  const split = (i: number) => (parts > 1 ? { ...p.evidence, split: { part: i + 1, parts, transaction_total_minor: p.amountMinor.toString() } } : p.evidence);
  const settled: { paymentId: string; intentId: string }[] = [];
  const credited: { paymentId: string; intentId: string }[] = [];
  for (const [i, c] of decision.credits.entries()) {
    const id = i === 0 ? paymentId : newPaymentId(deps.random);
    const reason = creditReason(c);
    if (i === 0) {
      await tx.updateTable('payments').set({ status: 'matched', reason, intent_id: c.intent.id, amount_minor: amountToDb(c.amountMinor), evidence_json: jsonOrNull(split(0)) }).where('id', '=', id).execute();
    } else {
      await tx.insertInto('payments').values({ ...paymentRow(p, id, `${p.txRef}:${i + 1}`, c.amountMinor, split(i), options.note), status: 'matched', reason, intent_id: c.intent.id }).execute();
    }
    if (c.settles) {
      await settle(deps, tx, c.intent, id, p, now, options, { late: c.late, underpaidByMinor: c.underpaidByMinor });
      settled.push({ paymentId: id, intentId: c.intent.id });
    } else {
      // A part of what is due (Solana Pay reference): credited, the intent waits for the rest.
      await countPayment(tx, c.intent, now);
      credited.push({ paymentId: id, intentId: c.intent.id });
    }
  }
  if (settled.length === 0) return { kind: 'credited', paymentId, intentId: credited[0].intentId };
  const [head, ...also] = settled;
  return { kind: 'settled', paymentId: head.paymentId, intentId: head.intentId, ...(also.length ? { also } : {}) };
}

import { TxConflict, type Db, type Tx } from '../../db/open.ts';
import { amountFromDb } from '../../db/amounts.ts';
import { intentFromRow } from '../../db/intent-rows.ts';
import { PaydError } from '../../domain/errors.ts';
import { chosenIntent } from '../../domain/intent.ts';
import { decideMatch } from '../../domain/matching.ts';
import type { IngestOutcome, ReceivedPayment } from '../../domain/payment.ts';
import type { IngestOptions, LedgerContext } from './deps.ts';
import { settle } from './settle.ts';
import { audit } from '../../db/audit.ts';
import { formatMinor, formatMinorFixed } from '../../domain/money.ts';
import type { PaymentReason } from '../../domain/payment-policy.ts';

type Manual = IngestOptions & { intentId: string };

/** A payment against what an intent is still due: the signed difference (negative: short) and the row's reason. */
export function paymentDifference(amountMinor: bigint, dueMinor: bigint): { minor: bigint; reason: PaymentReason | null } {
  const minor = amountMinor - dueMinor;
  return { minor, reason: minor < 0n ? 'underpaid' : minor > 0n ? 'overpaid' : null };
}

/** What is already credited to an intent: its matched payments (held ones are not). */
export async function creditedTo(tx: Tx | Db, intentId: string): Promise<bigint> {
  const rows = await tx.selectFrom('payments').select('amount_minor').where('intent_id', '=', intentId).where('status', '=', 'matched').execute();
  return rows.reduce((sum, r) => sum + BigInt(r.amount_minor), 0n);
}

/** The operator's choice, checked like a match (method, receiver, amount, time) but without searching. */
async function namedIntent(d: LedgerContext, tx: Tx, p: ReceivedPayment, intentId: string) {
  const decision = decideMatch(p, (await tx.selectFrom('intents').selectAll().where('id', '=', intentId).execute()).map(intentFromRow), { mode: 'manual', skewMs: d.skewMs });
  if (decision.kind === 'unmatched') throw new PaydError('CONFLICT', `intent ${intentId} cannot be settled: ${decision.reason.replace(/_/g, ' ')}`);
  return decision.allocations[0].intent;
}

/** Manual settlement of a payment just recorded (its row `paymentId`): it settles the named intent. */
export async function settleNamed(deps: LedgerContext, tx: Tx, p: ReceivedPayment, paymentId: string, options: Manual): Promise<IngestOutcome> {
  const intent = await namedIntent(deps, tx, p, options.intentId);
  await tx.updateTable('payments').set({ status: 'matched', intent_id: intent.id }).where('id', '=', paymentId).execute();
  await settle(deps, tx, intent, paymentId, p, deps.clock.now(), options);
  return { kind: 'settled', paymentId, intentId: intent.id };
}

/**
 * Manual settlement of a reference that is already recorded: a payment kept unmatched is
 * linked to the named intent (audited); anything else is refused. One transfer, one row,
 * so it can never settle two intents.
 */
export async function linkRecorded(deps: LedgerContext, tx: Tx, p: ReceivedPayment, options: Manual): Promise<IngestOutcome> {
  const existing = await tx.selectFrom('payments').selectAll().where('method', '=', p.method).where('tx_ref', '=', p.txRef).executeTakeFirstOrThrow();
  // Held for another intent: that intent's merchant decides (or the operator accepts it there).
  if (existing.status === 'held' && existing.intent_id !== options.intentId) {
    throw new PaydError('CONFLICT', `transaction reference ${p.txRef} is held for intent ${existing.intent_id ?? '(unknown)'}: accept it there with payd payments accept ${p.txRef} --intent ${existing.intent_id ?? '<id>'}`);
  }
  const wasHeld = existing.status === 'held';
  if (existing.status !== 'unmatched' && !wasHeld) {
    throw new PaydError('CONFLICT', `transaction reference ${p.txRef} already settled intent ${existing.intent_id ?? '(unknown)'}`);
  }
  const recorded: ReceivedPayment = { ...p, amountMinor: amountFromDb(existing.amount_minor), receiver: existing.receiver, occurredAt: existing.occurred_at };
  const intent = chosenIntent(await namedIntent(deps, tx, recorded, options.intentId));
  if (intent.method !== existing.method || intent.receiver !== existing.receiver) {
    throw new PaydError('CONFLICT', `payment ${existing.id} was made to ${existing.method} ${existing.receiver}, not to this intent's ${intent.method} ${intent.receiver}`);
  }
  const credited = await creditedTo(tx, intent.id);
  const difference = paymentDifference(recorded.amountMinor, intent.payAmountMinor - credited);
  // A payment that is not what the intent is due settles only once the operator saw that and said so.
  if (difference.minor !== 0n && !options.acceptDifference) {
    const amount = (minor: bigint) => `${formatMinorFixed(minor, deps.decimalsOf(intent.method))} ${intent.method}`;
    throw new PaydError('CONFLICT', `payment ${p.txRef} is ${amount(recorded.amountMinor)}, ${amount(difference.minor < 0n ? -difference.minor : difference.minor)} ${difference.minor < 0n ? 'less' : 'more'} than the ${amount(intent.payAmountMinor - credited)} intent ${intent.id} is due: confirm the difference to settle it with this payment`);
  }
  const now = deps.clock.now();
  const reason = wasHeld ? existing.reason : difference.reason;
  const upd = await tx.updateTable('payments').set({ status: 'matched', reason, intent_id: intent.id, note: options.note ?? existing.note }).where('id', '=', existing.id).where('status', '=', existing.status).executeTakeFirst();
  if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`payment ${existing.id}`);
  const signed = difference.minor === 0n ? null : `${difference.minor > 0n ? '+' : '-'}${formatMinor(difference.minor < 0n ? -difference.minor : difference.minor, deps.decimalsOf(intent.method))}`;
  await audit(tx, { at: now, actor: options.actor ?? 'cli', action: 'payment.link', subject: existing.id, details: { intent_id: intent.id, tx_ref: p.txRef, was: existing.reason, difference: signed, note: options.note ?? null } });
  // The merchant is told it was paid short or over, and that a person decided it settles.
  const accepted = wasHeld || difference.minor !== 0n;
  await settle(deps, tx, intent, existing.id, recorded, now, options, {
    ...(accepted ? { accepted: true, settledBy: 'operator' as const } : {}),
    ...(wasHeld ? { alreadyCounted: true } : {}),
    ...(difference.minor < 0n ? { underpaidByMinor: -difference.minor } : difference.minor > 0n ? { overpaidByMinor: difference.minor } : {}),
  });
  return { kind: 'settled', paymentId: existing.id, intentId: intent.id };
}

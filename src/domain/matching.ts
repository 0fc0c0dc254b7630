import type { IntentsTable } from '../db/schema.ts';
import type { ReceivedPayment, UnmatchedReason } from './payment.ts';

export type MatchDecision =
  | { kind: 'settle'; intent: IntentsTable }
  | { kind: 'unmatched'; reason: UnmatchedReason; intentId?: string };

/**
 * Pure matching rule (DESIGN §3): a Solana Pay reference match settles on a credit of at
 * least pay_amount; otherwise exactly one intent with that pay_amount must be open. A
 * payment counts for an intent only if it happened after the intent was created (less
 * the clock-skew allowance) and before it expired.
 */
export function decideMatch(p: ReceivedPayment, candidates: IntentsTable[], o: { skewMs: number; manual: boolean }): MatchDecision {
  const refs = new Set(p.references ?? []);
  const byReference = !o.manual && candidates.length > 0 && candidates.every((c) => c.reference !== null && refs.has(c.reference));

  if (o.manual) {
    const intent = candidates[0];
    if (!intent) return { kind: 'unmatched', reason: 'no_matching_intent' };
    if (intent.status !== 'pending') return { kind: 'unmatched', reason: intent.status === 'settled' ? 'already_settled' : intent.status === 'canceled' ? 'canceled' : 'late', intentId: intent.id };
    return { kind: 'settle', intent };
  }

  if (byReference) {
    const intent = candidates[0];
    if (intent.status === 'settled') return { kind: 'unmatched', reason: 'already_settled', intentId: intent.id };
    if (intent.status === 'canceled') return { kind: 'unmatched', reason: 'canceled', intentId: intent.id };
    const timing = timingOf(p, intent, o.skewMs);
    if (timing) return { kind: 'unmatched', reason: timing, intentId: intent.id };
    if (p.amountMinor < BigInt(intent.pay_amount_minor)) return { kind: 'unmatched', reason: 'underpaid', intentId: intent.id };
    return { kind: 'settle', intent };
  }

  const exact = candidates.filter((c) => BigInt(c.pay_amount_minor) === p.amountMinor);
  const open = exact.filter((c) => c.status !== 'settled' && c.status !== 'canceled' && timingOf(p, c, o.skewMs) === null);
  if (open.length === 1) return { kind: 'settle', intent: open[0] };
  if (open.length > 1) return { kind: 'unmatched', reason: 'ambiguous' };
  const nearest = exact[0];
  if (!nearest) return { kind: 'unmatched', reason: 'no_matching_intent' };
  if (nearest.status === 'settled') return { kind: 'unmatched', reason: 'already_settled', intentId: nearest.id };
  // A canceled intent keeps its pay_amount reserved, so money sent to it is for it: the operator refunds.
  if (nearest.status === 'canceled' && timingOf(p, nearest, o.skewMs) !== 'too_early') return { kind: 'unmatched', reason: 'canceled', intentId: nearest.id };
  return { kind: 'unmatched', reason: timingOf(p, nearest, o.skewMs) ?? 'no_matching_intent', intentId: nearest.id };
}

function timingOf(p: ReceivedPayment, intent: IntentsTable, skewMs: number): 'too_early' | 'late' | null {
  if (p.occurredAt < intent.created_at - skewMs) return 'too_early';
  if (p.occurredAt > intent.expires_at) return 'late';
  return null;
}

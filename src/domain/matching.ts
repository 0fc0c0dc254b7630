import type { Intent } from './intent.ts';
import type { ReceivedPayment, UnmatchedReason } from './payment.ts';

/**
 * How a payment finds its intent, chosen by the caller, never guessed from the candidates:
 * - `manual`: an operator names the intent (candidates = that one intent);
 * - `reference`: Solana Pay references found in the transaction (candidates = the intents holding them);
 * - `amount`: the unique open intent with exactly this pay_amount.
 */
export type MatchMode = 'manual' | 'reference' | 'amount';

/** Part of a payment credited to one intent. */
export interface Allocation {
  intent: Intent;
  amountMinor: bigint;
}

export type MatchDecision =
  /** Settle each allocation's intent; `remainder` is credit left over for an intent it did not cover. */
  | { kind: 'settle'; allocations: Allocation[]; remainder?: { amountMinor: bigint; reason: UnmatchedReason; intentId: string } }
  | { kind: 'unmatched'; reason: UnmatchedReason; intentId?: string };

export interface MatchOptions {
  mode: MatchMode;
  /** How long before an intent's creation a payment may have happened and still match it, ms. */
  skewMs: number;
}

/**
 * Pure matching rule. A payment counts for an intent only if it happened
 * after the intent was created (less the clock-skew allowance) and before it expired.
 */
export function decideMatch(p: ReceivedPayment, candidates: readonly Intent[], options: MatchOptions): MatchDecision {
  switch (options.mode) {
    case 'manual':
      return manual(p, candidates);
    case 'reference':
      return byReference(p, candidates, options.skewMs);
    case 'amount':
      return byAmount(p, candidates, options.skewMs);
  }
}

/** Can still be settled, provided the payment's time fits. */
const isOpen = (c: Intent): boolean => c.status === 'pending' || c.status === 'expired';

/** Why an intent that is no longer open cannot take a payment. */
// A canceled intent keeps its pay_amount reserved, so money sent to it is its money: kept
// unmatched as `canceled` for the operator to refund.
const closedReason = (c: Intent): UnmatchedReason => (c.status === 'settled' ? 'already_settled' : c.status === 'canceled' ? 'canceled' : 'late');

const oldestFirst = (a: Intent, b: Intent): number => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function manual(p: ReceivedPayment, candidates: readonly Intent[]): MatchDecision {
  const intent = candidates[0];
  if (!intent) return { kind: 'unmatched', reason: 'no_matching_intent' };
  if (intent.status !== 'pending') return { kind: 'unmatched', reason: closedReason(intent), intentId: intent.id };
  return { kind: 'settle', allocations: [{ intent, amountMinor: p.amountMinor }] };
}

/**
 * Solana Pay: one transaction may carry several of our references (one customer paying
 * several orders at once). The credit settles each referenced intent it covers, oldest
 * first, at its pay_amount; what is left over goes to the last settled intent (an
 * over-payment), or, when an intent was not covered, is kept as its under-payment.
 */
function byReference(p: ReceivedPayment, candidates: readonly Intent[], skewMs: number): MatchDecision {
  const refs = new Set(p.references ?? []);
  const referenced = candidates.filter((c) => c.reference !== null && refs.has(c.reference)).sort(oldestFirst);
  const first = referenced[0];
  if (!first) return { kind: 'unmatched', reason: 'no_matching_intent' };
  const open = referenced.filter((c) => isOpen(c) && timingOf(p, c, skewMs) === null);
  if (open.length === 0) {
    const notTimely = referenced.find(isOpen);
    if (notTimely) return { kind: 'unmatched', reason: timingOf(p, notTimely, skewMs)!, intentId: notTimely.id };
    return { kind: 'unmatched', reason: closedReason(first), intentId: first.id };
  }

  const allocations: Allocation[] = [];
  let left = p.amountMinor;
  let uncovered: Intent | undefined;
  for (const intent of open) {
    const due = intent.payAmountMinor;
    if (left < due) {
      uncovered = intent;
      break;
    }
    allocations.push({ intent, amountMinor: due });
    left -= due;
  }
  if (allocations.length === 0) return { kind: 'unmatched', reason: 'underpaid', intentId: open[0].id };
  if (left > 0n && uncovered) return { kind: 'settle', allocations, remainder: { amountMinor: left, reason: 'underpaid', intentId: uncovered.id } };
  const last = allocations[allocations.length - 1];
  last.amountMinor += left;
  return { kind: 'settle', allocations };
}

/** Exactly one open intent with this pay_amount; the newest closed one explains a miss. */
function byAmount(p: ReceivedPayment, candidates: readonly Intent[], skewMs: number): MatchDecision {
  const exact = candidates.filter((c) => c.payAmountMinor === p.amountMinor).sort((a, b) => oldestFirst(b, a));
  const open = exact.filter((c) => isOpen(c) && timingOf(p, c, skewMs) === null);
  if (open.length === 1) return { kind: 'settle', allocations: [{ intent: open[0], amountMinor: p.amountMinor }] };
  if (open.length > 1) return { kind: 'unmatched', reason: 'ambiguous' };
  const nearest = exact[0];
  if (!nearest) return { kind: 'unmatched', reason: 'no_matching_intent' };
  if (!isOpen(nearest)) return { kind: 'unmatched', reason: closedReason(nearest), intentId: nearest.id };
  return { kind: 'unmatched', reason: timingOf(p, nearest, skewMs) ?? 'no_matching_intent', intentId: nearest.id };
}

function timingOf(p: ReceivedPayment, intent: Intent, skewMs: number): 'too_early' | 'late' | null {
  if (p.occurredAt < intent.createdAt - skewMs) return 'too_early';
  if (p.occurredAt > intent.expiresAt) return 'late';
  return null;
}

import type { Intent } from './intent.ts';
import type { ReceivedPayment, UnmatchedReason } from './payment.ts';
import { withinTolerance, type PaymentPolicy, type PaymentReason } from './payment-policy.ts';

/**
 * Attribution: which intent, if any, an observed payment belongs to, and what then
 * happens to it (credited, held, or left unmatched for the operator). Pure; the ledger feeds it
 * the candidates and writes the decision in one transaction.
 *
 * Rules, in order:
 * 1. Solana Pay reference: the intents whose reference the transaction carries.
 * 2. Exact amount: the one intent that still holds this pay_amount (its reservation, whatever
 *    its status: pending, expired, canceled, settled).
 * 3. Short payment: the single open intent whose pay_amount lies above the amount by at most
 *    the attribution window, when no other reserved pay_amount lies in that window and none
 *    equals the amount. Anything else stays unmatched, as before.
 * Uniqueness of reserved amounts means nothing is ever attributed to a newer intent while an
 * older one could still receive the same payment: an older holder in the window makes it ambiguous.
 */

/** An intent as attribution sees it. */
export interface Candidate {
  intent: Intent;
  /** Already credited to it (accumulated partial payments), minor units. */
  creditedMinor: bigint;
  /** Its pay_amount's reservation is still its own at the payment's time. */
  holdsAmount: boolean;
}

export interface Credit {
  intent: Intent;
  amountMinor: bigint;
  /** The intent's credited sum reaches what it asked (less any tolerance): it settles. */
  settles: boolean;
  late: boolean;
  /** Settled short within the tolerance, by this much. */
  underpaidByMinor?: bigint;
  /** Paid above what was due, by this much (the merchant refunds the difference). */
  overpaidByMinor?: bigint;
}

export type Attribution =
  | { kind: 'credit'; credits: Credit[] }
  | { kind: 'hold'; intent: Intent; reason: PaymentReason }
  | { kind: 'unmatched'; reason: UnmatchedReason; intentId?: string };

export interface AttributionContext {
  policy: PaymentPolicy;
  /** How long before an intent's creation a payment may have happened and still be its (clock skew), ms. */
  skewMs: number;
}

const isOpen = (i: Intent): boolean => i.status === 'pending' || i.status === 'expired';
const tooEarly = (p: ReceivedPayment, i: Intent, skewMs: number): boolean => p.occurredAt < i.createdAt - skewMs;
const isLate = (p: ReceivedPayment, i: Intent): boolean => p.occurredAt > i.expiresAt;
const oldestFirst = (a: Candidate, b: Candidate): number => a.intent.createdAt - b.intent.createdAt || (a.intent.id < b.intent.id ? -1 : a.intent.id > b.intent.id ? 1 : 0);

/** Why a closed intent holds a payment instead of taking it. */
const closedReason = (i: Intent): PaymentReason => (i.status === 'settled' ? 'after_settlement' : 'canceled');

/**
 * What a payment of `amountMinor` does to an open intent it is attributed to: settle, credit a
 * part, or hold. `late`: after expires_at (still reserved).
 */
export function creditOrHold(c: Candidate, amountMinor: bigint, late: boolean, policy: PaymentPolicy): Credit | { hold: PaymentReason } {
  if (late && policy.latePayments === 'hold') return { hold: 'late' };
  const due = c.intent.payAmountMinor - c.creditedMinor;
  if (amountMinor >= due) {
    const over = amountMinor - due;
    return { intent: c.intent, amountMinor, settles: true, late, ...(over > 0n ? { overpaidByMinor: over } : {}) };
  }
  const short = due - amountMinor;
  if (withinTolerance(short, c.intent.payAmountMinor, policy.underpaymentTolerance)) {
    return { intent: c.intent, amountMinor, settles: true, late, underpaidByMinor: short };
  }
  return { hold: 'underpaid' };
}

export function attribute(p: ReceivedPayment, candidates: readonly Candidate[], ctx: AttributionContext): Attribution {
  const refs = new Set((p.references ?? []).filter(Boolean));
  const referenced = candidates.filter((c) => c.intent.reference !== null && refs.has(c.intent.reference));
  if (referenced.length > 0) return byReference(p, referenced.sort(oldestFirst), ctx);
  return byAmount(p, candidates, ctx);
}

/**
 * Solana Pay: a reference names its intent whatever the amount, so payments accumulate. One
 * transaction may carry several references (one payer, several orders): it covers what each is
 * still due, oldest first; what is left over is the last one's over-payment, or the uncovered
 * one's partial credit.
 */
function byReference(p: ReceivedPayment, referenced: Candidate[], ctx: AttributionContext): Attribution {
  const timely = referenced.filter((c) => !tooEarly(p, c.intent, ctx.skewMs));
  if (timely.length === 0) return { kind: 'unmatched', reason: 'too_early', intentId: referenced[0].intent.id };
  const open = timely.filter((c) => isOpen(c.intent));
  if (open.length === 0) return { kind: 'hold', intent: timely[0].intent, reason: closedReason(timely[0].intent) };
  if (open.length === 1) {
    const c = open[0];
    const late = isLate(p, c.intent);
    if (late && ctx.policy.latePayments === 'hold') return { kind: 'hold', intent: c.intent, reason: 'late' };
    const r = creditOrHold(c, p.amountMinor, late, ctx.policy);
    // Short beyond the tolerance: with a reference it is credited and waits for the rest.
    return { kind: 'credit', credits: ['hold' in r ? { intent: c.intent, amountMinor: p.amountMinor, settles: false, late } : r] };
  }
  const credits: Credit[] = [];
  let left = p.amountMinor;
  for (const c of open) {
    if (left <= 0n) break;
    const due = c.intent.payAmountMinor - c.creditedMinor;
    const late = isLate(p, c.intent);
    if (left < due) {
      credits.push({ intent: c.intent, amountMinor: left, settles: false, late });
      left = 0n;
      break;
    }
    credits.push({ intent: c.intent, amountMinor: due, settles: true, late });
    left -= due;
  }
  if (left > 0n) {
    const last = credits[credits.length - 1];
    last.amountMinor += left;
    last.overpaidByMinor = left;
  }
  // A late part under "hold" is not credited automatically: hold the whole payment on the first.
  if (ctx.policy.latePayments === 'hold' && credits.some((c) => c.late)) return { kind: 'hold', intent: credits[0].intent, reason: 'late' };
  return { kind: 'credit', credits };
}

function byAmount(p: ReceivedPayment, candidates: readonly Candidate[], ctx: AttributionContext): Attribution {
  const holders = candidates.filter((c) => c.holdsAmount);
  const exact = holders.filter((c) => c.intent.payAmountMinor === p.amountMinor);
  if (exact.length > 1) return { kind: 'unmatched', reason: 'ambiguous' };
  if (exact.length === 1) return toOne(p, exact[0], ctx);

  const window = holders.filter((c) => c.intent.payAmountMinor > p.amountMinor && c.intent.payAmountMinor - p.amountMinor <= ctx.policy.attributionWindowMinor);
  if (window.length === 1 && isOpen(window[0].intent)) {
    // ₹500.00 may be ₹499.37 rounded up or ₹500.40 rounded down: with another reserved amount within a unit, nobody's.
    if (roundingOfAnother(p, holders, window[0], ctx.policy.roundUnitMinor)) return { kind: 'unmatched', reason: 'ambiguous' };
    return toOne(p, window[0], ctx);
  }
  if (window.length > 1) return { kind: 'unmatched', reason: 'ambiguous' };

  // Not attributable: say why, from the intent this amount was last handed out to.
  const nearest = candidates.filter((c) => c.intent.payAmountMinor === p.amountMinor).sort(oldestFirst).at(-1)?.intent ?? window[0]?.intent;
  if (!nearest) return { kind: 'unmatched', reason: window.length ? 'underpaid' : 'no_matching_intent' };
  const reason: UnmatchedReason =
    nearest.status === 'settled' ? 'already_settled' : nearest.status === 'canceled' ? 'canceled' : nearest.payAmountMinor > p.amountMinor ? 'underpaid' : tooEarly(p, nearest, ctx.skewMs) ? 'too_early' : 'late';
  return { kind: 'unmatched', reason, intentId: nearest.id };
}

/** A whole payment with another reserved amount (not `chosen`) less than one unit away, below or above. */
function roundingOfAnother(p: ReceivedPayment, holders: readonly Candidate[], chosen: Candidate, unit: bigint | null | undefined): boolean {
  if (!unit || p.amountMinor % unit !== 0n) return false;
  return holders.some((c) => c !== chosen && c.intent.payAmountMinor > p.amountMinor - unit && c.intent.payAmountMinor < p.amountMinor + unit);
}

/** The one intent a payment is attributed to by amount. */
function toOne(p: ReceivedPayment, c: Candidate, ctx: AttributionContext): Attribution {
  const i = c.intent;
  if (tooEarly(p, i, ctx.skewMs)) return { kind: 'unmatched', reason: 'too_early', intentId: i.id };
  if (!isOpen(i)) return { kind: 'hold', intent: i, reason: closedReason(i) };
  const r = creditOrHold(c, p.amountMinor, isLate(p, i), ctx.policy);
  return 'hold' in r ? { kind: 'hold', intent: i, reason: r.hold } : { kind: 'credit', credits: [r] };
}

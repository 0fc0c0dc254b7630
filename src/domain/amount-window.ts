/**
 * The unique-amount window (DESIGN §3, docs/api.md "Unique pay_amount"): which pay amounts one price
 * may be handed out as. Pure; the allocator (services/intents.ts) takes the smallest free one.
 *
 * The window is the price plus 0 … N steps, where N is the larger of `maxOffsetSteps` and the
 * steps that fit in `maxSurchargePercent` of the price. So a price stays available under
 * pressure (301 open intents of ₹499 at 1 %: up to ₹503.99) while what a customer can be asked
 * to pay above the price stays bounded and known to the merchant.
 */
export interface AmountWindowRules {
  stepMinor: bigint;
  maxOffsetSteps: number;
  /** maxSurchargePercent in hundredths of a percent (1 % = 100). */
  surchargeBasisPoints: bigint;
}

/** Steps the surcharge alone may add: bounds the search (and a wide window's reads) per create. */
export const MAX_SURCHARGE_STEPS = 10_000n;

/** The highest offset, in steps, a pay amount for `amountMinor` may have. */
export function topOffsetSteps(amountMinor: bigint, r: AmountWindowRules): bigint {
  let bySurcharge = (amountMinor * r.surchargeBasisPoints) / 10_000n / r.stepMinor;
  if (bySurcharge > MAX_SURCHARGE_STEPS) bySurcharge = MAX_SURCHARGE_STEPS;
  const fixed = BigInt(r.maxOffsetSteps);
  return fixed > bySurcharge ? fixed : bySurcharge;
}

/** How many of a window's `top + 1` amounts one merchant's intents may hold (at least one). */
export function merchantShare(top: bigint, percent: number): bigint {
  const n = ((top + 1n) * BigInt(Math.round(percent * 100))) / 10_000n;
  return n < 1n ? 1n : n;
}

/** The most a customer can be asked to pay for this price: the merchant-visible bound. */
export function maxPayAmount(amountMinor: bigint, r: AmountWindowRules): bigint {
  return amountMinor + topOffsetSteps(amountMinor, r) * r.stepMinor;
}

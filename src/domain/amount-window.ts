/**
 * The unique-amount window (docs/api.md "Unique pay_amount"): which pay amounts one price
 * may be handed out as. Pure; the allocator (services/intents/reserve.ts) takes the smallest free one.
 *
 * The window is the price plus 0 … N steps, where N is the larger of `maxOffsetSteps` and the
 * steps that fit in `maxSurchargePercent` of the price. So a price stays available under
 * pressure (301 open intents of ₹499 at 1 %: up to ₹503.99) while what a customer can be asked
 * to pay above the price stays bounded and known to the merchant.
 *
 * No amount of the window that is a multiple of the method's round unit (₹1.00, 1 USDT) is ever
 * handed out, the price itself included: a payer who rounds ₹499.37 down to ₹499.00 then pays
 * short of an intent (held, settled within a tolerance, or unmatched), never exactly another
 * customer's. The window keeps its bounds, so it holds that many fewer amounts (101 → 100 for a
 * whole price with 100 steps of 0.01) and a whole price costs its customer one step more.
 */
export interface AmountWindowRules {
  stepMinor: bigint;
  maxOffsetSteps: number;
  /** maxSurchargePercent in hundredths of a percent (1 % = 100). */
  surchargeBasisPoints: bigint;
  /** The method's round unit (MethodRules.roundUnitMinor): never handed out; null: every amount is. */
  roundUnitMinor: bigint | null;
}

/** Steps the surcharge alone may add: bounds the search (and a wide window's reads) per create. */
export const MAX_SURCHARGE_STEPS = 10_000n;

/** The highest offset, in steps, a pay amount for `amountMinor` may have. */
export function topOffsetSteps(amountMinor: bigint, omit: Omit<AmountWindowRules, 'roundUnitMinor'>): bigint {
  let bySurcharge = (amountMinor * omit.surchargeBasisPoints) / 10_000n / omit.stepMinor;
  if (bySurcharge > MAX_SURCHARGE_STEPS) bySurcharge = MAX_SURCHARGE_STEPS;
  const fixed = BigInt(omit.maxOffsetSteps);
  return fixed > bySurcharge ? fixed : bySurcharge;
}

/** How many of a window's `capacity` amounts one merchant's intents may hold (at least one). */
export function merchantShare(capacity: bigint, percent: number): bigint {
  const n = (capacity * BigInt(Math.round(percent * 100))) / 10_000n;
  return n < 1n ? 1n : n;
}

/** An amount a payer reaches by rounding to the method's unit: never a pay_amount. */
export function isRoundAmount(amountMinor: bigint, pick: Pick<AmountWindowRules, 'roundUnitMinor'>): boolean {
  return pick.roundUnitMinor !== null && amountMinor % pick.roundUnitMinor === 0n;
}

/** How many pay amounts the window of this price may hand out: its `top + 1` less the round ones. */
export function windowCapacity(amountMinor: bigint, rules: AmountWindowRules): bigint {
  const top = topOffsetSteps(amountMinor, rules);
  return top + 1n - roundOffsets(amountMinor, top, rules);
}

/**
 * How many of price + k × step (k = 0 … top) are multiples of the round unit: counted, not
 * enumerated (a window may hold 10,000 amounts; SOL's unit is 10^6 steps). They are the k
 * with k × step ≡ −price (mod unit), one every unit / gcd(step, unit) steps from the first.
 */
export function roundOffsets(amountMinor: bigint, top: bigint, pick: Pick<AmountWindowRules, 'stepMinor' | 'roundUnitMinor'>): bigint {
  const unit = pick.roundUnitMinor;
  if (unit === null) return 0n;
  const g = gcd(pick.stepMinor, unit);
  if (amountMinor % g !== 0n) return 0n;
  const period = unit / g;
  const need = mod(-amountMinor / g, period);
  const first = mod(need * inverse(mod(pick.stepMinor / g, period), period), period);
  return first > top ? 0n : (top - first) / period + 1n;
}

const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** a⁻¹ mod m for coprime a and m (extended Euclid); 0 when m is 1. */
function inverse(a: bigint, m: bigint): bigint {
  let [r0, r1, t0, t1] = [m, a, 0n, 1n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, t0, t1] = [r1, r0 - q * r1, t1, t0 - q * t1];
  }
  return mod(t0, m);
}

/** The most a customer can be asked to pay for this price: the merchant-visible bound. */
export function maxPayAmount(amountMinor: bigint, omit: Omit<AmountWindowRules, 'roundUnitMinor'>): bigint {
  return amountMinor + topOffsetSteps(amountMinor, omit) * omit.stepMinor;
}

import type { MethodAmounts } from '../../config/read.ts';
import type { IntentWriter, ReserveRange } from '../../db/intent-store.ts';
import { isRoundAmount, merchantShare, roundOffsets, topOffsetSteps, windowCapacity } from '../../domain/amount-window.ts';
import { PaydError } from '../../domain/errors.ts';
import type { Method } from '../../domain/methods.ts';
import { formatMinor } from '../../domain/money.ts';
import type { Clock, Logger, Metrics } from '../../domain/ports.ts';

export interface Reservation {
  method: Method;
  amounts: MethodAmounts;
  /** The amount asked, minor units. */
  amountMinor: bigint;
  merchantId: string;
  intentId: string;
  reservedUntil: number;
  now: number;
  /** For messages: the method's decimals. */
  decimals: number;
}

/**
 * Smallest free pay_amount in the window (domain/amount-window.ts), taken by the store in as
 * few statements as it can (IntentWriter.reserveFirst): an upsert that re-checks the hold, so
 * a concurrent create (PostgreSQL) that took an amount first only moves us to the next.
 * Nothing is released early: an amount stays held until expires_at + cooldown, canceled or not.
 * Under pressure (the price itself taken), one merchant's intents may hold at most its share of
 * the window, so one shop's flood of creates cannot lock a price for every shop on the receiver.
 */
export async function reserveAmount(writer: IntentWriter, reservation: Reservation): Promise<bigint> {
  const { method, amounts: a, amountMinor, now } = reservation;
  const top = topOffsetSteps(amountMinor, a);
  const price = amountMinor;
  const last = amountMinor + top * a.stepMinor;
  const step = a.stepMinor;
  // Whole amounts (₹499.00) are skipped: a payer rounding down never matches another intent exactly.
  const skipMultiplesOf = a.roundUnitMinor ?? 0n;
  // Object literals, not `{ ...slot, from, to }`: on Node 20 a spread followed by more members
  // builds a new hidden class every time (~1 µs each, and megamorphic reads downstream).
  const range = (from: bigint, to: bigint): ReserveRange => ({ method, receiver: a.receiver, now, step, skipMultiplesOf, intentId: reservation.intentId, reservedUntil: reservation.reservedUntil, from, to });
  let from = price;
  if (a.merchantSharePercent < 100) {
    // The share counts only once the first amount (the price itself, or the next when the price is whole) is taken.
    const first = isRoundAmount(amountMinor, a) ? price + step : price;
    if (first <= last && (await writer.reserveFirst(range(first, first))) !== null) return first;
    const found = await writer.held({ method, receiver: a.receiver, now, merchantId: reservation.merchantId, from: price, to: last });
    const capacity = windowCapacity(amountMinor, a);
    if (found.byMerchant >= merchantShare(capacity, a.merchantSharePercent)) {
      return unavailable(`this shop already holds ${found.byMerchant} of the ${capacity} pay amounts near ${formatMinor(amountMinor, reservation.decimals)} ${method} (its share: ${a.merchantSharePercent} %)`);
    }
    from = first + step;
  }
  const taken = from <= last ? await writer.reserveFirst(range(from, last)) : null;
  if (taken !== null) return taken;
  return unavailable(`no unique pay amount is free near ${formatMinor(amountMinor, reservation.decimals)} ${method}`);

  /** Retry-After: when the first amount of the window frees up (one being reserved by a concurrent create: soon). */
  async function unavailable(why: string): Promise<never> {
    const soonest = await writer.soonestRelease({ method, receiver: a.receiver, fromMinor: price, toMinor: last });
    const retryAfter = Math.max(1, Math.ceil(((soonest ?? now) - now) / 1000));
    throw new PaydError('AMOUNT_UNAVAILABLE', `${why}; the first is free again in ${retryAfter} s (Retry-After), or ask for another amount`, { retryAfter });
  }
}

/** A create that had to search past this share of the unique-amount window logs a warning. */
const POOL_WARN_RATIO = 0.8;
const POOL_WARN_EVERY_MS = 60_000;

/** How full the window of pay amounts above an amount was: a gauge, and a warning (once a minute per receiver) past 80 %. */
export function createPoolWatch(deps: { metrics: Metrics; log?: Logger; clock: Clock }) {
  const warnedAt = new Map<string, number>();
  /** The share of the window's amounts (whole ones never count) searched to find a free one. */
  return function notePoolUse(method: Method, a: MethodAmounts, amountMinor: bigint, payAmount: bigint): void {
    const k = (payAmount - amountMinor) / a.stepMinor;
    const ratio = Number(k + 1n - roundOffsets(amountMinor, k, a)) / Number(windowCapacity(amountMinor, a));
    deps.metrics.amountPoolUse(method, a.receiver, ratio);
    if (ratio <= POOL_WARN_RATIO || !deps.log) return;
    const key = `${method}:${a.receiver}`;
    const now = deps.clock.now();
    if (now - (warnedAt.get(key) ?? -Infinity) < POOL_WARN_EVERY_MS) return;
    warnedAt.set(key, now);
    deps.log.warn('amount pool over 80 % full: raise maxSurchargePercent or maxOffsetSteps, or shorten amountReuseCooldownSeconds', {
      method,
      receiver: a.receiver,
      amount_minor: amountMinor.toString(),
      used_ratio: Math.round(ratio * 100) / 100,
    });
  };
}

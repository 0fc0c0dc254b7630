import { PaydError } from '../../domain/errors.ts';
import type { IntentPricing } from '../../domain/intent.ts';
import type { Method } from '../../domain/methods.ts';
import { convertPrice, FIATS, formatRate, ratioToRate } from '../../domain/rates.ts';
import type { RateBook } from '../../pricing/book.ts';
import { configurePairHint } from '../../pricing/suggest.ts';
import { checkPrice, checkRange } from './checks.ts';
import type { FiatPrice, MethodDeposit } from './inputs.ts';

export interface QuoteDeps {
  /** Fiat prices: the rate cache and how long a quote holds (default and cap: ttlSeconds). */
  pricing?: { book: Pick<RateBook, 'quote' | 'unconfigured'>; quoteSeconds?: number; retryAfterSeconds: number };
  ttlSeconds: number;
}

/**
 * The price converted at the freshest trusted rate, rounded up to the method's amount step
 * (domain/rates.ts convertPrice); the quote holds for pricing.quoteSeconds, at most the
 * intent's lifetime. No fresh rate: RATE_UNAVAILABLE, never a stale or made-up one; no rate
 * configured at all: PRICING_NOT_CONFIGURED, the operator's to fix (retrying would not help).
 */
export async function quotePrice(deps: QuoteDeps, method: Method, deposit: MethodDeposit, price: FiatPrice, now: number): Promise<{ amountMinor: bigint; pricing: IntentPricing }> {
  const { fiat, priceMinor, text } = checkPrice(price);
  const { unit, decimals } = deposit.method.rules;
  const rate = await (deps.pricing?.book.quote(unit, fiat) ?? (unit === fiat ? Promise.resolve({ rate: { num: 1n, den: 1n }, source: 'identity', at: now }) : undefined));
  if (!rate) {
    const missing = deps.pricing ? deps.pricing.book.unconfigured(unit, fiat) : `${unit}/${fiat}`;
    if (missing) throw new PaydError('PRICING_NOT_CONFIGURED', `prices in ${fiat} cannot be paid in ${unit} here: no ${missing} rate is configured. The operator can ${configurePairHint([missing])}; until then price in ${unit}`);
    const retryAfter = deps.pricing?.retryAfterSeconds ?? 60;
    throw new PaydError('RATE_UNAVAILABLE', `no fresh ${unit}/${fiat} rate right now; retry in ${retryAfter} s (Retry-After) or price in ${unit}`, { retryAfter });
  }
  const amountMinor = convertPrice(priceMinor, FIATS[fiat].decimals, rate.rate, decimals, deposit.amounts.stepMinor);
  checkRange(method, deposit, amountMinor, true);
  const quoteSeconds = Math.min(deps.pricing?.quoteSeconds ?? deps.ttlSeconds, deps.ttlSeconds);
  return { amountMinor, pricing: { priceAmount: text, priceCurrency: fiat, rate: formatRate(ratioToRate(rate.rate)), source: rate.source, quotedAt: now, validUntil: now + Math.round(quoteSeconds * 1000) } };
}

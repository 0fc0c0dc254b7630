import { parseDecimal } from '../domain/money.ts';
import type { ShowAmount } from '../domain/notify/text.ts';
import type { UnmatchedPlan } from '../services/notify/feed.ts';
import { shownAmount } from '../http/checkout/format.ts';
import type { MethodRegistry } from '../methods/registry.ts';

/**
 * Amounts in notifications as the checkout shows them: a fiat method with its sign ("₹1,499.00"),
 * any other with its unit, and the method id when the unit alone is ambiguous ("12.50 USDT (USDT_TRC20)").
 */
export function showAmountWith(methods: MethodRegistry): ShowAmount {
  return (method, minor) => {
    const d = methods.get(method);
    if (!d) return null;
    const { fiatSign } = d.checkout;
    const text = shownAmount({ decimals: d.rules.decimals, fiatSign }, minor).text;
    if (fiatSign !== undefined) return text;
    return `${text} ${d.rules.unit}${d.rules.unit === d.id ? '' : ` (${d.id})`}`;
  };
}

/** notifications.unmatched with its amounts in each method's minor units; a method payd does not know, or too many decimals, is a configuration error. */
export function unmatchedPlanWith(methods: MethodRegistry, unmatched: { below: Record<string, string>; burst: number; periodMinutes: number } | undefined): UnmatchedPlan {
  const u = unmatched ?? { below: {}, burst: 5, periodMinutes: 60 };
  const below = new Map<string, bigint>();
  for (const [method, text] of Object.entries(u.below)) {
    const d = methods.get(method);
    if (!d) throw new Error(`notifications.unmatched.below.${method}: not a payment method of this payd`);
    const parsed = parseDecimal(text, d.rules.decimals);
    if (!parsed.ok) throw new Error(`notifications.unmatched.below.${method}: ${JSON.stringify(text)} has more than ${d.rules.decimals} decimals`);
    below.set(method, parsed.minor);
  }
  return { below, burst: u.burst, periodMs: u.periodMinutes * 60_000 };
}

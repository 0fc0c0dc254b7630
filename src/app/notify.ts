import type { ShowAmount } from '../domain/notify/text.ts';
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

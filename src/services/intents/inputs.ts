import type { MethodAmounts } from '../../config/read.ts';
import type { MethodDescriptor } from '../../methods/method.ts';

// What the intent service is given: each enabled method's deposit settings (by the composition
// root) and a create's checked request (by the HTTP route).

/** What the composition root knows about each enabled method. */
export interface MethodDeposit {
  /** What the method is: its money rules, payment link and whether it needs a reference. */
  method: MethodDescriptor;
  amounts: MethodAmounts;
  payeeName: string;
  /** Token id: TRC20 contract or SPL mint. */
  token?: string;
}

/** A price in fiat: a JSON number, or decimal text that no float rounding touches ("1234.57"). */
export interface FiatPrice {
  amount: number | string;
  currency: string;
}

export interface CreateIntentInput {
  /**
   * In the method's currency: a JSON number, or decimal text for an amount a number cannot carry
   * exactly; exactly one of amount and price (the create route's body schema checks, http/routes/intents.ts).
   */
  amount?: number | string;
  /** A fiat price converted at a locked quote. */
  price?: FiatPrice;
  currency: string;
  order_id: string;
  return_url?: string;
}

/** An open create: no currency; the customer picks one of `methods` on the checkout. */
export interface OpenIntentInput {
  /** The methods offered, or "all": every enabled method that can take the price. */
  methods: readonly string[] | 'all';
  /** A fiat price; or `amount`, a price in INR. Exactly one of them. */
  price?: FiatPrice;
  amount?: number | string;
  order_id: string;
  return_url?: string;
}

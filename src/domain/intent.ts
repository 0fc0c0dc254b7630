import { isoOrNull, isoUtc } from './iso-time.ts';
import { DecimalNumber } from './json.ts';
import type { Method } from './methods.ts';
import { formatMinor, inexactAsNumber } from './money.ts';
import type { PaymentReason } from './payment-policy.ts';
import type { Fiat } from './rates.ts';

export type IntentStatus = 'pending' | 'settled' | 'expired' | 'canceled';

/**
 * A payment intent as the core sees it: money as bigint minor units, times as epoch ms.
 * Stores map their rows to and from it (db/intent-rows.ts), so services and the pure core do
 * not depend on either store's table shape.
 */
export interface Intent {
  id: string;
  merchantId: string;
  orderId: string;
  method: Method;
  amountMinor: bigint;
  /** What the payer is asked to send: the amount plus a small unique offset. */
  payAmountMinor: bigint;
  receiver: string;
  /** The reference key the payer's transfer carries (Solana Pay methods), else null. */
  reference: string | null;
  paymentUri: string;
  status: IntentStatus;
  returnUrl: string | null;
  createdAt: number;
  expiresAt: number;
  transactionHash: string | null;
  verifiedAt: number | null;
  paymentId: string | null;
  updatedAt: number;
  canceledAt: number | null;
  /** How many payments the intent shows (credited, held, refunded); 0 or absent: none, nothing to read. */
  paymentCount?: number;
  /** Set when the intent was priced in fiat: the price as given and the quote it was converted at. */
  pricing: IntentPricing | null;
  /** The payment link a customer created it from; null or absent: created over the API. */
  linkId?: string | null;
}

/** A fiat price and the locked quote that turned it into `amountMinor`. */
export interface IntentPricing {
  /** Decimal text, as the merchant gave it ("1999", "19.99"). */
  priceAmount: string;
  priceCurrency: Fiat;
  /** Decimal text: price currency per 1 unit of the method's currency. */
  rate: string;
  /** Which source(s) gave the rate: "coindcx", "kraken×frankfurter", "peg", "identity". */
  source: string;
  quotedAt: number;
  validUntil: number;
}

/** A pending intent past its expiry reads as expired even before housekeeping writes it. */
export function effectiveStatus(intent: Pick<Intent, 'status' | 'expiresAt'>, now: number): IntentStatus {
  return intent.status === 'pending' && now >= intent.expiresAt ? 'expired' : intent.status;
}

export interface ViewContext {
  now: number;
  livemode: boolean;
  /** Base of checkout_url, without trailing slash. */
  publicUrl: string;
  /** Decimal places of a method's minor unit (its descriptor's rules). */
  decimalsOf: (method: Method) => number;
}

/** A payment as the merchant sees it on its intent. */
export interface ShownPayment {
  /** The chain transaction (TRON: its id, also when it carried several rows), UTR or signature. */
  transactionHash: string;
  amountMinor: bigint;
  receivedAt: number;
  status: 'credited' | 'held' | 'refunded';
  reason: PaymentReason | null;
}

/** What reached an intent: the credited sum and every payment attributed to it, oldest first. */
export interface IntentMoney {
  receivedMinor: bigint;
  payments: ShownPayment[];
}

export const NO_MONEY: IntentMoney = Object.freeze({ receivedMinor: 0n, payments: [] as ShownPayment[] }) as IntentMoney;

/**
 * The fetch response (spec fields first, then ours). Also the `data` of every webhook.
 * Amounts are JSON numbers written exactly; beside one that a reader parsing numbers as doubles
 * would get wrong (an 18-decimal payment with dust), `<field>_exact` carries it as a decimal
 * string (absent otherwise: undefined members are not written).
 */
export function intentView(intent: Intent, ctx: ViewContext, money: IntentMoney) {
  const decimals = ctx.decimalsOf(intent.method);
  const amount = (minor: bigint) => new DecimalNumber(formatMinor(minor, decimals));
  const asked = amount(intent.amountMinor);
  const payAmount = amount(intent.payAmountMinor);
  const received = amount(money.receivedMinor);
  return {
    intent_id: intent.id,
    amount: asked,
    currency: intent.method,
    status: effectiveStatus(intent, ctx.now),
    transaction_hash: intent.transactionHash,
    verified_at: isoOrNull(intent.verifiedAt),
    canceled_at: isoOrNull(intent.canceledAt),
    order_id: intent.orderId,
    pay_amount: payAmount,
    payment_address: intent.receiver,
    payment_uri: intent.paymentUri,
    reference: intent.reference ?? undefined,
    created_at: isoOrNull(intent.createdAt),
    expires_at: isoOrNull(intent.expiresAt),
    checkout_url: `${ctx.publicUrl}/pay/${intent.id}`,
    return_url: intent.returnUrl ?? undefined,
    livemode: ctx.livemode,
    amount_received: received,
    amount_exact: inexactAsNumber(asked.text),
    pay_amount_exact: inexactAsNumber(payAmount.text),
    amount_received_exact: inexactAsNumber(received.text),
    payments: money.payments.map((p) => {
      const paid = amount(p.amountMinor);
      return { transaction_hash: p.transactionHash, amount: paid, amount_exact: inexactAsNumber(paid.text), received_at: isoUtc(p.receivedAt), status: p.status, reason: p.reason };
    }),
    price: intent.pricing ? { amount: new DecimalNumber(intent.pricing.priceAmount), currency: intent.pricing.priceCurrency } : undefined,
    quote: intent.pricing
      ? { rate: new DecimalNumber(intent.pricing.rate), source: intent.pricing.source, quoted_at: isoUtc(intent.pricing.quotedAt), valid_until: isoUtc(intent.pricing.validUntil) }
      : undefined,
    link_id: intent.linkId ?? undefined,
  };
}

export type IntentView = ReturnType<typeof intentView>;

/** The create response: `success` plus the same fields. */
export const createdView = (intent: Intent, ctx: ViewContext) => ({ success: true, ...intentView(intent, ctx, NO_MONEY) });

/** An amount member as the API writes it (intentView's convention): `field`, and `field_exact` when a double cannot carry it. */
export function exactAmount<K extends string>(field: K, text: string): { [P in K]: DecimalNumber } & { [P in `${K}_exact`]?: string } {
  const exact = inexactAsNumber(text);
  return (exact === undefined ? { [field]: new DecimalNumber(text) } : { [field]: new DecimalNumber(text), [`${field}_exact`]: exact }) as never;
}

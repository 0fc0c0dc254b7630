import { PaydError } from './errors.ts';
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
  /** null: an open intent whose customer has not chosen a method yet (no amount, receiver or link either). */
  method: Method | null;
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
  /** Set on an open intent (the customer picks the method): what it offers and what was chosen. */
  open?: OpenOffer | null;
}

/** An open intent's offer: the fiat price, the methods the customer may pick, the choices made so far. */
export interface OpenOffer {
  price: { amount: string; currency: Fiat };
  methods: Method[];
  /** Oldest first; the intent's own method, amount and link are those of the latest. */
  choices: IntentChoice[];
}

/** One method the customer chose: its reserved pay amount (held until the intent's reservation ends) and locked quote. */
export interface IntentChoice {
  method: Method;
  amountMinor: bigint;
  payAmountMinor: bigint;
  receiver: string;
  reference: string | null;
  paymentUri: string;
  pricing: IntentPricing;
  chosenAt: number;
}

/** The intent, which must have its method (an open intent before its customer's choice has none to pay or settle). */
export function chosenIntent(intent: Intent): ChosenIntent {
  if (intent.method === null) throw new PaydError('CONFLICT', `intent ${intent.id} has no method yet: its customer has not chosen how to pay`);
  return intent as ChosenIntent;
}

/** The intent as if this choice were its method: what a payment on the choice's reservation is attributed to. */
export function asChoice(intent: Intent, c: IntentChoice): ChosenIntent {
  return { ...intent, method: c.method, amountMinor: c.amountMinor, payAmountMinor: c.payAmountMinor, receiver: c.receiver, reference: c.reference, paymentUri: c.paymentUri, pricing: c.pricing };
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
  /** How payers name a method on an open intent's options: its group ("USDT") and network ("TRON (TRC-20)"; null: none). */
  labelsOf: (method: Method) => MethodLabels;
}

export interface MethodLabels {
  group: string;
  network: string | null;
}

/** A payment as the merchant sees it on its intent. */
export interface ShownPayment {
  /** The chain transaction (TRON: its id, also when it carried several rows), UTR or signature. */
  transactionHash: string;
  amountMinor: bigint;
  receivedAt: number;
  status: 'credited' | 'held' | 'refunded';
  reason: PaymentReason | null;
  /** The method it was paid in, when known: on an open intent it may be a choice the customer left. */
  method?: Method;
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
function buildView(intent: Intent, ctx: ViewContext, money: IntentMoney) {
  // An open intent before the customer's choice has no method, amount or link yet: those read null.
  const decimals = intent.method === null ? 0 : ctx.decimalsOf(intent.method);
  const amount = (minor: bigint) => new DecimalNumber(formatMinor(minor, decimals));
  const chosen = intent.method !== null;
  const asked = amount(intent.amountMinor);
  const payAmount = amount(intent.payAmountMinor);
  const received = amount(money.receivedMinor);
  const price = intent.pricing ?? (intent.open ? { priceAmount: intent.open.price.amount, priceCurrency: intent.open.price.currency } : null);
  return {
    intent_id: intent.id,
    amount: chosen ? asked : null,
    currency: intent.method,
    status: effectiveStatus(intent, ctx.now),
    transaction_hash: intent.transactionHash,
    verified_at: isoOrNull(intent.verifiedAt),
    canceled_at: isoOrNull(intent.canceledAt),
    order_id: intent.orderId,
    pay_amount: chosen ? payAmount : null,
    payment_address: chosen ? intent.receiver : null,
    payment_uri: chosen ? intent.paymentUri : null,
    reference: intent.reference ?? undefined,
    created_at: isoOrNull(intent.createdAt),
    expires_at: isoOrNull(intent.expiresAt),
    checkout_url: `${ctx.publicUrl}/pay/${intent.id}`,
    return_url: intent.returnUrl ?? undefined,
    livemode: ctx.livemode,
    amount_received: received,
    amount_exact: chosen ? inexactAsNumber(asked.text) : undefined,
    pay_amount_exact: chosen ? inexactAsNumber(payAmount.text) : undefined,
    amount_received_exact: inexactAsNumber(received.text),
    payments: money.payments.map((p) => {
      // Paid in another of an open intent's choices than the one it settled in: in that method's units, named.
      const other = p.method !== undefined && intent.method !== null && p.method !== intent.method ? p.method : undefined;
      const paid = other ? new DecimalNumber(formatMinor(p.amountMinor, ctx.decimalsOf(other))) : amount(p.amountMinor);
      return { transaction_hash: p.transactionHash, amount: paid, amount_exact: inexactAsNumber(paid.text), received_at: isoUtc(p.receivedAt), status: p.status, reason: p.reason, currency: other };
    }),
    price: price ? { ...exactAmount('amount', price.priceAmount), currency: price.priceCurrency } : undefined,
    quote: intent.pricing
      ? { rate: new DecimalNumber(intent.pricing.rate), source: intent.pricing.source, quoted_at: isoUtc(intent.pricing.quotedAt), valid_until: isoUtc(intent.pricing.validUntil) }
      : undefined,
    options: intent.open ? optionsView(intent.open, ctx) : undefined,
    link_id: intent.linkId ?? undefined,
  };
}

/** An open intent's methods as the API shows them: each with its labels and, once chosen, its reserved pay amount. */
function optionsView(open: OpenOffer, ctx: ViewContext) {
  return open.methods.map((method) => {
    const labels = ctx.labelsOf(method);
    const choice = open.choices.find((c) => c.method === method);
    const pay = choice ? formatMinor(choice.payAmountMinor, ctx.decimalsOf(method)) : null;
    return { currency: method, group: labels.group, network: labels.network, pay_amount: pay === null ? null : new DecimalNumber(pay), pay_amount_exact: pay === null ? undefined : inexactAsNumber(pay) };
  });
}

/** An intent whose method is known: every intent but an open one before its customer's choice. */
export type ChosenIntent = Intent & { method: Method };
export type IntentView = ReturnType<typeof buildView>;
/** The view of a ChosenIntent: its method, amounts and link are never null. */
export type ChosenIntentView = Omit<IntentView, 'amount' | 'currency' | 'pay_amount' | 'payment_address' | 'payment_uri'> & {
  amount: DecimalNumber;
  currency: Method;
  pay_amount: DecimalNumber;
  payment_address: string;
  payment_uri: string;
};

export function intentView(intent: ChosenIntent, ctx: ViewContext, money: IntentMoney): ChosenIntentView;
export function intentView(intent: Intent, ctx: ViewContext, money: IntentMoney): IntentView;
export function intentView(intent: Intent, ctx: ViewContext, money: IntentMoney): IntentView {
  return buildView(intent, ctx, money);
}

/** The create response: `success` plus the same fields. */
export function createdView(intent: ChosenIntent, ctx: ViewContext): { success: true } & ChosenIntentView;
export function createdView(intent: Intent, ctx: ViewContext): { success: true } & IntentView;
export function createdView(intent: Intent, ctx: ViewContext) {
  return { success: true as const, ...buildView(intent, ctx, NO_MONEY) };
}

/** An amount member as the API writes it (intentView's convention): `field`, and `field_exact` when a double cannot carry it. */
export function exactAmount<K extends string>(field: K, text: string): { [P in K]: DecimalNumber } & { [P in `${K}_exact`]?: string } {
  const exact = inexactAsNumber(text);
  return (exact === undefined ? { [field]: new DecimalNumber(text) } : { [field]: new DecimalNumber(text), [`${field}_exact`]: exact }) as never;
}

// Named shapes of the API, taken from the types generated from the OpenAPI document
// (api.ts), so the client's signatures follow the document and cannot drift from it.
import type { components, operations, webhooks } from './api.js';

type Schemas = components['schemas'];
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** An intent as fetched or listed (amounts are JSON numbers; prefer `X_exact` when present). */
export type Intent = Schemas['Intent'];
/** What a create answers: the intent, with the fiat quote when it was priced. */
export type CreatedIntent = Schemas['CreatedIntent'];
/** What a create with `currency` answers: its method is chosen, so `currency`, `amount` and `pay_amount` are set (only an open intent's are null). */
export type ChosenIntent = CreatedIntent & {
  currency: NonNullable<CreatedIntent['currency']>;
  amount: NonNullable<CreatedIntent['amount']>;
  pay_amount: NonNullable<CreatedIntent['pay_amount']>;
};
export type Payment = Schemas['Payment'];
export type HeldPayment = Schemas['HeldPayment'];
export type PaymentSuccess = Schemas['PaymentSuccess'];
export type EventType = Schemas['Event']['type'];
/** One event of GET /api/v1/events: the same id and data as its webhook, `data` typed by `type`. */
export type PaydEvent = {
  [T in EventType]: Omit<Schemas['Event'], 'type' | 'data'> & { type: T; data: Extract<WebhookPayload, { type: T }>['data'] };
}[EventType];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type RotatedWebhookSecret = Schemas['RotatedWebhookSecret'];
export type FieldError = Schemas['FieldError'];
export type IntentPage = Schemas['IntentPage'];
export type EventPage = Omit<Schemas['EventPage'], 'data'> & { data: PaydEvent[] };

type CreateBody = JsonBody<operations['createPayment']['requestBody']>;
/** The create's body: `amount` (a number, or a decimal string for exact amounts) or `price`, `currency`, `order_id`. */
export type CreateIntentInput = Omit<CreateBody, 'currency' | 'methods'> & { currency: NonNullable<CreateBody['currency']> };
/**
 * An open intent's body: `methods` (a list, or `'all'`) instead of `currency`, with a fiat
 * `price`, or `amount` as a price in INR; the customer picks the method on the checkout.
 */
export type CreateOpenIntentInput = Omit<CreateBody, 'currency' | 'methods'> & { methods: NonNullable<CreateBody['methods']> };
/** One method an open intent offers, with its `pay_amount` once the customer chose it. */
export type IntentOption = NonNullable<CreatedIntent['options']>[number];
export type Currency = CreateIntentInput['currency'];
/** Filters of the intent list; the client pages through `cursor` itself. */
export type ListIntentsQuery = Omit<Query<operations['listIntents']>, 'cursor'>;
export type IntentStatus = NonNullable<ListIntentsQuery['status']>;
export type ListEventsQuery = Query<operations['listEvents']>;
export type AcceptPaymentResult = JsonBody<operations['acceptPayment']['responses'][200]>;
export type MarkRefundedResult = JsonBody<operations['markPaymentRefunded']['responses'][200]>;
/** A payment link: its public `url`, QR codes, price (or the customer's bounds), `status` and paid `payments`. */
export type PaymentLink = Schemas['PaymentLink'];
export type PaymentLinkStatus = PaymentLink['status'];
/** `title` and exactly one of `amount` (INR), `price` and `customer_amount`; optional `methods`, `single_use`, `expires_at`. */
export type CreatePaymentLinkInput = JsonBody<operations['createPaymentLink']['requestBody']>;
export type ListPaymentLinksQuery = Query<operations['listPaymentLinks']>;

type ErrorBodyOf<Op> = Op extends { responses: infer R } ? { [S in keyof R]: S extends 200 ? never : JsonBody<R[S]> }[keyof R] : never;
type AnyErrorBody = { [K in keyof operations]: ErrorBodyOf<operations[K]> }[keyof operations];
/** Every error code the API document lists (a newer server may add codes: compare as strings). */
export type ErrorCode = AnyErrorBody extends { code: infer C } ? C : never;

/** A webhook's body, by type (`webhook.test` included), as the OpenAPI document's webhooks describe it. */
export type WebhookPayload = { [K in keyof webhooks]: webhooks[K]['post'] extends { requestBody: infer B } ? JsonBody<B> : never }[keyof webhooks];

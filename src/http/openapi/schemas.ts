import { FIAT_CODES } from '../../domain/rates.ts';
import type { MethodRegistry } from '../../methods/registry.ts';
import { FEED_TYPES } from '../../services/events/feed.ts';
import { INTENT_STATUSES } from '../routes/intents.ts';

/** Response schemas of the merchant API (JSON Schema 2020-12, as OpenAPI 3.1 uses). */

const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type, 'null'] });
const timestamp = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds, e.g. 2026-11-22T10:00:00.000Z' };
/** `<field>_exact`: the convention for an amount a JSON number read as a double cannot carry exactly. */
const exact = (field: string) => ({
  type: 'string',
  pattern: '^\\d+(\\.\\d+)?$',
  description: `${field} as an exact decimal string, present only when ${field} has more significant digits than a JSON number read as a double keeps (an 18-decimal amount with dust): use it instead of ${field} then.`,
});

/** The fetch response; also the `data` of every webhook and event. */
const intentPropertiesOf = (methods: MethodRegistry) => ({
  intent_id: { type: 'string', format: 'uuid' },
  amount: nullable({ type: 'number', description: "The amount you asked for, as a plain decimal; on an open intent, the price in the chosen method's currency (null until the customer chooses)." }),
  currency: {
    type: ['string', 'null'],
    enum: [...methods.ids, null],
    description: 'The payment method; on an open intent (created with methods), the one the customer chose, or paid in once settled; null until the customer chooses.',
  },
  status: { type: 'string', enum: [...INTENT_STATUSES], description: 'A pending intent past expires_at reads as expired.' },
  transaction_hash: nullable({ type: 'string', description: 'UTR, TRON transaction id or Solana signature; null until settled.' }),
  verified_at: nullable({ ...timestamp, description: 'When payd verified the payment; null until settled.' }),
  canceled_at: nullable({ ...timestamp, description: 'When the intent was canceled; null unless canceled.' }),
  order_id: { type: 'string' },
  pay_amount: nullable({ type: 'number', description: 'The exact amount the customer must send (unique among open intents of the address); null on an open intent until the customer chooses.' }),
  payment_address: nullable({ type: 'string', description: 'VPA for UPI, TRON address, or Solana wallet; null on an open intent until the customer chooses.' }),
  payment_uri: nullable({ type: 'string', description: 'UPI deep link, Solana Pay transfer request, or tron: URI; null on an open intent until the customer chooses.' }),
  reference: { type: 'string', description: `Solana Pay reference key (${methods.list.filter((m) => m.newReference).map((m) => m.id).sort().join(' and ')} only).` },
  created_at: timestamp,
  expires_at: timestamp,
  checkout_url: { type: 'string', format: 'uri', description: 'The hosted checkout page for the customer.' },
  return_url: { type: 'string', description: 'Where the checkout page sends the customer after payment, when given at creation.' },
  livemode: { type: 'boolean', description: 'false in the sandbox.' },
  amount_received: { type: 'number', description: 'The sum of the payments credited to this intent (0 until one is).' },
  amount_exact: exact('amount'),
  pay_amount_exact: exact('pay_amount'),
  amount_received_exact: exact('amount_received'),
  payments: { type: 'array', items: { $ref: '#/components/schemas/Payment' }, description: 'Every payment attributed to this intent, oldest first: credited, held for your decision, or marked refunded.' },
  link_id: { type: 'string', format: 'uuid', description: 'The payment link a customer created this intent from (only on such intents).' },
  price: {
    type: 'object',
    description: 'The fiat price as given at creation (only on intents created with price, and on open intents); amount is it converted at quote.rate.',
    required: ['amount', 'currency'],
    properties: { amount: { type: 'number' }, amount_exact: exact('amount'), currency: { type: 'string', enum: [...FIAT_CODES] } },
  },
  quote: {
    type: 'object',
    description: 'The locked rate the price was converted at (only with price). The intent expires then; a payment after valid_until is held (reason quote_expired) unless the method is configured to settle it late.',
    required: ['rate', 'source', 'quoted_at', 'valid_until'],
    properties: {
      rate: { type: 'number', description: "Price currency per 1 unit of the method's currency (83.75: ₹83.75 per USDT)." },
      source: { type: 'string', description: 'Where the rate came from: a source (coindcx, kraken, …), a cross rate (kraken×frankfurter), peg (1 USDT = 1 USD) or identity.' },
      quoted_at: timestamp,
      valid_until: timestamp,
    },
  },
  options: {
    type: 'array',
    description: 'Only on an open intent (created with methods): the methods the customer may pick on the checkout, each with its reserved pay_amount once chosen. Any of them paid settles the intent once.',
    items: {
      type: 'object',
      required: ['currency', 'group', 'network', 'pay_amount'],
      properties: {
        currency: { type: 'string', enum: [...methods.ids] },
        group: { type: 'string', description: 'What payers call it: UPI, USDT, USDC, SOL.' },
        network: nullable({ type: 'string', description: 'The network as wallets name it (TRON (TRC-20), Ethereum (ERC20), Solana (SPL)…); null when there is none to pick (UPI).' }),
        pay_amount: nullable({ type: 'number', description: 'The unique amount reserved when the customer chose this method; null until then.' }),
        pay_amount_exact: exact('pay_amount'),
      },
    },
  },
});
const paymentReason = nullable({
  type: 'string',
  enum: ['late', 'quote_expired', 'underpaid', 'overpaid', 'canceled', 'after_settlement', null],
  description: 'Why it is held, or what to look at on a credited one: late (after expires_at), quote_expired (after a priced intent\'s quote.valid_until: the rate no longer holds), underpaid, overpaid (refund the difference), canceled (the intent was), after_settlement (the intent was already paid).',
});
const intentRequired = ['intent_id', 'amount', 'currency', 'status', 'transaction_hash', 'verified_at', 'canceled_at', 'order_id', 'pay_amount', 'payment_address', 'payment_uri', 'created_at', 'expires_at', 'checkout_url', 'livemode', 'amount_received', 'payments'];

const page = (item: string, cursorDescription: string) => ({
  type: 'object',
  required: ['data', 'has_more', 'next_cursor'],
  properties: {
    data: { type: 'array', items: { $ref: `#/components/schemas/${item}` } },
    has_more: { type: 'boolean' },
    next_cursor: nullable({ type: 'string', description: cursorDescription }),
  },
});

/** The response schemas; `currency` lists the methods this payd knows. */
export function apiSchemas(methods: MethodRegistry) {
  const intentProperties = intentPropertiesOf(methods);
  /** What was unusual about the payment that settled an intent: in payment.success, and on the fetch of the settled intent. */
  const settlementProperties = {
    late: { type: 'boolean', const: true, description: 'Paid after expires_at while the amount was still reserved (latePayments: settle), or after a quote the method settles late (settleExpiredQuotes).' },
    underpaid_by: { type: 'number', description: 'Settled short, within underpaymentTolerance, by your accept or by the operator, by this much: the order is not paid in full.' },
    underpaid_by_exact: exact('underpaid_by'),
    overpaid_by: { type: 'number', description: 'Settled by a payment above what was due (an accepted one, or one the operator assigned), by this much: refund the difference.' },
    overpaid_by_exact: exact('overpaid_by'),
    accepted: { type: 'boolean', const: true, description: 'Settled because a person accepted the payment: a held payment accepted, or a payment the operator assigned by hand that differs from pay_amount.' },
    settled_by: { type: 'string', enum: ['merchant', 'operator'], description: 'Who accepted it (with accepted): you over the API, or the payd operator (CLI or console).' },
  };
  return {
    Intent: { type: 'object', required: intentRequired, properties: { ...intentProperties, ...settlementProperties }, description: 'A settled intent also carries what its payment.success said about the settlement (late, underpaid_by, overpaid_by, accepted, settled_by).' },
    CreatedIntent: {
      type: 'object',
      required: ['success', ...intentRequired],
      properties: { success: { type: 'boolean', const: true }, ...intentProperties },
    },
    IntentPage: page('Intent', 'Pass as cursor for the next page; null on the last page.'),
    Payment: {
      type: 'object',
      required: ['transaction_hash', 'amount', 'received_at', 'status', 'reason'],
      properties: {
        transaction_hash: { type: 'string', description: 'UTR, TRON transaction id or Solana signature: the {transaction_hash} of accept and refunded.' },
        amount: { type: 'number', description: "What this payment brought, in the intent's currency." },
        amount_exact: exact('amount'),
        received_at: { ...timestamp, description: 'When it was paid (block time, bank alert time).' },
        status: { type: 'string', enum: ['credited', 'held', 'refunded'], description: 'credited: counts towards amount_received; held: waits for you (accept or refund it); refunded: you said you returned it.' },
        reason: paymentReason,
        currency: { type: 'string', enum: [...methods.ids], description: "Only on an open intent, for a payment in another method than the one it settled in (a choice the customer left): amount is in this method's currency." },
      },
    },
    HeldPayment: {
      type: 'object',
      required: ['intent_id', 'order_id', 'currency', 'transaction_hash', 'amount', 'pay_amount', 'reason'],
      description: 'The data of payment.held and payment.refunded: the payment, and the order it was held on.',
      properties: {
        intent_id: { type: 'string', format: 'uuid' },
        order_id: { type: 'string', description: 'The order_id of the intent the payment was held on.' },
        currency: { type: 'string', description: 'The intent\'s payment method (its currency).' },
        transaction_hash: { type: 'string' },
        amount: { type: 'number', description: 'What the payment brought.' },
        amount_exact: exact('amount'),
        pay_amount: { type: 'number', description: 'What the intent asked for (its pay_amount): compare with amount.' },
        pay_amount_exact: exact('pay_amount'),
        reason: { type: 'string', enum: ['late', 'quote_expired', 'underpaid', 'overpaid', 'canceled', 'after_settlement'] },
      },
    },
    PaymentSuccess: {
      type: 'object',
      required: intentRequired,
      description: 'The intent, plus what was unusual about the payment that settled it.',
      properties: { ...intentProperties, ...settlementProperties },
    },
    Event: {
      type: 'object',
      required: ['id', 'type', 'created_at', 'data'],
      properties: {
        id: { type: 'string', description: 'The event id: the webhook-id header of its webhook.' },
        type: { type: 'string', enum: [...FEED_TYPES] },
        created_at: { ...timestamp, description: 'The webhook body\'s timestamp.' },
        data: {
          description: 'payment.success: PaymentSuccess; payment.held and payment.refunded: HeldPayment; intent.*: Intent.',
          anyOf: [{ $ref: '#/components/schemas/PaymentSuccess' }, { $ref: '#/components/schemas/HeldPayment' }],
        },
      },
    },
    EventPage: page('Event', 'Pass as after next time: the last event id of this page, or the after you sent when there is nothing new.'),
    PaymentLink: {
      type: 'object',
      required: ['link_id', 'url', 'title', 'price', 'customer_amount', 'methods', 'single_use', 'expires_at', 'status', 'payments', 'qr_png_url', 'qr_svg_url', 'created_at'],
      properties: {
        link_id: { type: 'string', format: 'uuid' },
        url: { type: 'string', format: 'uri', description: 'The page to forward or print (server.publicUrl/l/<slug>).' },
        title: { type: 'string' },
        price: nullable({ type: 'object', required: ['amount', 'currency'], properties: { amount: { type: 'number' }, currency: { type: 'string', enum: [...FIAT_CODES] } }, description: 'The fixed price; null when the customer enters the amount.' }),
        customer_amount: nullable({
          type: 'object',
          required: ['min', 'max', 'currency'],
          properties: { min: { type: 'number' }, max: { type: 'number' }, currency: { type: 'string', enum: [...FIAT_CODES] } },
          description: 'The bounds of the amount the customer enters; null for a fixed price.',
        }),
        methods: nullable({ type: 'array', items: { type: 'string', enum: [...methods.ids] }, description: 'The methods offered; null: every enabled one.' }),
        single_use: { type: 'boolean' },
        expires_at: nullable(timestamp),
        status: { type: 'string', enum: ['active', 'inactive', 'expired', 'used'], description: 'active: takes payments; inactive: turned off; expired: past expires_at; used: a single-use link that was paid.' },
        payments: { type: 'integer', description: 'Intents created from this link and paid (list them with GET /api/v1/intents?link_id=).' },
        qr_png_url: { type: 'string', format: 'uri', description: 'A QR code of url, as PNG (to print).' },
        qr_svg_url: { type: 'string', format: 'uri', description: 'The same QR code as SVG.' },
        created_at: timestamp,
      },
    },
    PaymentLinkList: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: '#/components/schemas/PaymentLink' } } } },
    WebhookEndpoint: {
      type: 'object',
      required: ['url', 'secret_hint'],
      properties: {
        url: nullable({ type: 'string', format: 'uri' }),
        secret_hint: { type: 'string', pattern: '^whsec_….{4}$', description: 'The last 4 characters of the current signing secret.' },
      },
    },
    RotatedWebhookSecret: {
      type: 'object',
      required: ['webhook_secret', 'previous_valid_until'],
      properties: {
        webhook_secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'The new signing secret. Shown only this once.' },
        previous_valid_until: { ...timestamp, description: 'Until then the previous secret signs too.' },
      },
    },
    FieldError: {
      type: 'object',
      required: ['field', 'message'],
      properties: { field: { type: 'string' }, message: { type: 'string' } },
    },
  };
}

export type ApiSchemaName = keyof ReturnType<typeof apiSchemas>;

/** An error response whose `code` is one of `codes`. */
export const errorSchema = (codes: string[]) => ({
  type: 'object',
  required: ['detail', 'code'],
  properties: {
    detail: { type: 'string', description: 'A human-readable message.' },
    code: { type: 'string', enum: codes },
    errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' }, description: 'INVALID_REQUEST only: one entry per bad field.' },
  },
});

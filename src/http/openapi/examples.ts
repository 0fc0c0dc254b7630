import type { MethodRegistry } from '../../methods/registry.ts';

/**
 * Examples shown in the OpenAPI document (what real responses look like; tests check they
 * validate): an intent of the first method whose descriptor carries an example.
 */
export function openApiExamples(methods: MethodRegistry) {
  const shown = methods.list.find((m) => m.openapi)!;
  const e = shown.openapi!.example;
  const intent = {
    intent_id: '3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10',
    amount: e.amount,
    currency: shown.id,
    status: 'pending',
    transaction_hash: null,
    verified_at: null,
    canceled_at: null,
    order_id: 'ORD-1',
    pay_amount: e.pay_amount,
    payment_address: e.payment_address,
    payment_uri: e.payment_uri,
    created_at: '2026-11-22T10:00:00.000Z',
    expires_at: '2026-11-22T10:30:00.000Z',
    checkout_url: 'https://pay.example.com/pay/3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10',
    livemode: true,
    amount_received: 0,
    payments: [] as unknown[],
  };
  const settled = {
    ...intent,
    status: 'settled',
    transaction_hash: e.transaction_hash,
    verified_at: '2026-11-22T10:04:12.345Z',
    amount_received: e.pay_amount,
    payments: [{ transaction_hash: e.transaction_hash, amount: e.pay_amount, received_at: '2026-11-22T10:04:10.000Z', status: 'credited', reason: null }],
  };
  const heldPayment = { transaction_hash: `${e.transaction_hash}2`, amount: e.amount, received_at: '2026-11-22T10:03:00.000Z', status: 'held', reason: 'underpaid' };
  const heldIntent = { ...intent, payments: [heldPayment] };
  const canceled = { ...intent, status: 'canceled', canceled_at: '2026-11-22T10:02:00.000Z' };

  const examples = {
    createRequest: { amount: e.amount, currency: shown.id, order_id: 'ORD-1', return_url: 'https://shop.example.com/orders/ORD-1' },
    created: { success: true, ...intent, return_url: 'https://shop.example.com/orders/ORD-1' },
    intent: settled,
    canceled,
    accepted: { ...heldIntent, status: 'settled', transaction_hash: heldPayment.transaction_hash, verified_at: '2026-11-22T10:06:00.000Z', amount_received: e.amount, payments: [{ ...heldPayment, status: 'credited' }] },
    refunded: { ...heldIntent, payments: [{ ...heldPayment, status: 'refunded' }] },
    held: { intent_id: intent.intent_id, order_id: intent.order_id, currency: intent.currency, transaction_hash: heldPayment.transaction_hash, amount: e.amount, pay_amount: intent.pay_amount, reason: 'underpaid' },
    page: { data: [settled], has_more: true, next_cursor: 'WzE3OTUzMTI4MDAwMDAsIjNmMGMyYThlLTZhMWItNGM1NS05ZDFlLTBiN2YyZjRjOWExMCJd' },
    events: {
      data: [
        { id: 'evt_5c0d9b1e2f3a4b5c8d9e0f1a2b3c4d5e', type: 'payment.success', created_at: '2026-11-22T10:04:12.351Z', data: settled },
        { id: 'evt_71e2a0b4c6d84e0f9a1b2c3d4e5f6a7b', type: 'intent.canceled', created_at: '2026-11-22T10:05:00.120Z', data: { ...canceled, intent_id: '91ab7c2e-1d3f-4a5b-8c6d-7e8f9a0b1c2d', checkout_url: 'https://pay.example.com/pay/91ab7c2e-1d3f-4a5b-8c6d-7e8f9a0b1c2d' } },
      ],
      has_more: false,
      next_cursor: 'evt_71e2a0b4c6d84e0f9a1b2c3d4e5f6a7b',
    },
    linkRequest: { title: 'Blue saree', amount: 499 },
    link: {
      link_id: '5b7e0c1d-2a3f-4b6c-8d9e-0f1a2b3c4d5e',
      url: 'https://pay.example.com/l/7Kq2mXw9PbR',
      title: 'Blue saree',
      price: { amount: 499, currency: 'INR' },
      customer_amount: null,
      methods: null,
      single_use: false,
      expires_at: null,
      status: 'active',
      payments: 0,
      qr_png_url: 'https://pay.example.com/l/7Kq2mXw9PbR/qr.png',
      qr_svg_url: 'https://pay.example.com/l/7Kq2mXw9PbR/qr.svg',
      created_at: '2026-11-22T09:00:00.000Z',
    },
    webhookEndpoint: { url: 'https://shop.example.com/payd-webhooks', secret_hint: 'whsec_…k9Q=' },
    webhookEndpointRequest: { url: 'https://shop.example.com/payd-webhooks' },
    rotated: { webhook_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9Tr5V0o+IbE=', previous_valid_until: '2026-11-23T10:00:00.000Z' },
  };

  /** One example body per error code. */
  const errors: Record<string, { detail: string; code: string; errors?: Array<{ field: string; message: string }> }> = {
    AUTH_INVALID_HEADERS: { detail: 'X-Client-ID and X-Client-Secret headers are required', code: 'AUTH_INVALID_HEADERS' },
    AUTH_INVALID_SECRET: { detail: 'invalid credentials', code: 'AUTH_INVALID_SECRET' },
    INVALID_REQUEST: { detail: 'amount must be a number', code: 'INVALID_REQUEST', errors: [{ field: 'amount', message: 'amount must be a number' }] },
    METHOD_UNSUPPORTED: { detail: `currency "BTC" is not supported here; use one of: ${methods.ids.join(', ')}`, code: 'METHOD_UNSUPPORTED' },
    AMOUNT_OUT_OF_RANGE: { detail: `amount must be at least ${e.range[0]} and at most ${e.range[1]} ${shown.rules.unit} for ${shown.id}`, code: 'AMOUNT_OUT_OF_RANGE' },
    ORDER_ID_CONFLICT: { detail: 'order_id "ORD-1" already has an intent with a different amount or currency', code: 'ORDER_ID_CONFLICT' },
    INTENT_NOT_FOUND: { detail: 'no payment intent "3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10"', code: 'INTENT_NOT_FOUND' },
    PAYMENT_NOT_ACCEPTABLE: { detail: 'payment 412345678902 of intent 3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10 is not held', code: 'PAYMENT_NOT_ACCEPTABLE' },
    INTENT_NOT_CANCELABLE: { detail: 'intent 3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10 is settled; only a pending intent can be canceled', code: 'INTENT_NOT_CANCELABLE' },
    PAYLOAD_TOO_LARGE: { detail: 'request body exceeds 16384 bytes', code: 'PAYLOAD_TOO_LARGE' },
    RATE_LIMITED: { detail: 'too many requests; slow down', code: 'RATE_LIMITED' },
    RATE_UNAVAILABLE: { detail: `no fresh SOL/INR rate right now; retry in 60 s (Retry-After) or price in SOL`, code: 'RATE_UNAVAILABLE' },
    PRICING_NOT_CONFIGURED: {
      detail: 'prices in INR cannot be paid in SOL here: no SOL/INR rate is configured. The operator can add it under "pricing": { "pairs": { "SOL/INR": ["coindcx", "wazirx"] } } in the config (docs/pricing.md); until then price in SOL',
      code: 'PRICING_NOT_CONFIGURED',
    },
    AMOUNT_UNAVAILABLE: { detail: `no unique pay amount is free near ${e.amount} ${shown.id}; the first is free again in 3650 s (Retry-After), or ask for another amount`, code: 'AMOUNT_UNAVAILABLE' },
    BUSY: { detail: 'the database is busy (another process holds its write lock); try again shortly', code: 'BUSY' },
    NOT_FOUND: { detail: 'no payment link "5b7e0c1d-2a3f-4b6c-8d9e-0f1a2b3c4d5e"', code: 'NOT_FOUND' },
    INTERNAL: { detail: 'internal error', code: 'INTERNAL' },
  };
  return { EXAMPLES: examples, ERROR_EXAMPLES: errors };
}

export type OpenApiExamples = ReturnType<typeof openApiExamples>;

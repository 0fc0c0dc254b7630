import type { OpenApiExamples } from './examples.ts';

/** The webhooks payd sends (OpenAPI 3.1 `webhooks`): Standard Webhooks headers and the event body. */

const DESCRIPTION =
  'Standard Webhooks. webhook-signature is "v1,<base64 HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + raw body)>", ' +
  'key being the base64-decoded part of your whsec_ secret after "whsec_"; during a secret rotation there are two, space-separated. ' +
  'Answer 2xx within the timeout (default 10 s); otherwise payd retries with backoff for about three days (410 stops it). ' +
  'Delivery is at-least-once: de-duplicate on webhook-id. GET /api/v1/events returns the same events.';

const HEADERS = [
  { name: 'webhook-id', in: 'header', required: true, description: 'The event id: the same on every retry, and the id in GET /api/v1/events.', schema: { type: 'string' } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds of this attempt.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  { name: 'webhook-signature', in: 'header', required: true, description: 'One or two space-separated "v1,<base64>" signatures.', schema: { type: 'string' } },
];

const webhook = (type: string, summary: string, data: Record<string, unknown>, example: unknown) => ({
  post: {
    operationId: `webhook_${type.replace('.', '_')}`,
    summary,
    description: DESCRIPTION,
    security: [],
    parameters: HEADERS,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['type', 'timestamp', 'data'],
            properties: { type: { type: 'string', const: type }, timestamp: { type: 'string', format: 'date-time' }, data },
          },
          example: { type, timestamp: '2026-11-22T10:04:12.351Z', data: example },
        },
      },
    },
    responses: { '200': { description: 'Any 2xx: received.' }, '410': { description: 'Gone: payd stops retrying this event.' } },
  },
});

const intent = { $ref: '#/components/schemas/Intent' };

export const webhooksDoc = ({ EXAMPLES }: OpenApiExamples) => ({
  'payment.success': webhook('payment.success', 'An intent was paid and is now settled (late, underpaid_by, accepted say how, when unusual)', { $ref: '#/components/schemas/PaymentSuccess' }, EXAMPLES.intent),
  'payment.held': webhook('payment.held', 'A payment reached one of your intents but was not credited: accept it or refund it', { $ref: '#/components/schemas/HeldPayment' }, EXAMPLES.held),
  'payment.refunded': webhook('payment.refunded', 'A held payment was marked refunded (payd moves no money)', { $ref: '#/components/schemas/HeldPayment' }, EXAMPLES.held),
  'intent.expired': webhook('intent.expired', 'An intent passed expires_at unpaid', intent, { ...EXAMPLES.intent, status: 'expired', transaction_hash: null, verified_at: null }),
  'intent.canceled': webhook('intent.canceled', 'An intent was canceled (API or operator)', intent, EXAMPLES.canceled),
  'webhook.test': webhook(
    'webhook.test',
    'A test sent by the operator (payd webhooks test); not retried, not in the event feed',
    { type: 'object', required: ['client_id', 'message'], properties: { client_id: { type: 'string', format: 'uuid' }, message: { type: 'string' } } },
    { client_id: '6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10', message: 'payd webhook test' },
  ),
});

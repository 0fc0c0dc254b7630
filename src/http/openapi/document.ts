import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { ErrorCode } from '../../domain/errors.ts';
import { HTTP_STATUS } from '../errors.ts';
import { builtinMethods, type MethodRegistry } from '../../methods/registry.ts';
import { EventsQuery } from '../routes/events.ts';
import { CreateBody, listIntentsQuery } from '../routes/intents.ts';
import { WebhookEndpointBody } from '../routes/webhook-endpoint.ts';
import { CreateLinkBody, ListLinksQuery } from '../routes/payment-links.ts';
import { openApiExamples } from './examples.ts';
import { apiSchemas, errorSchema, type ApiSchemaName } from './schemas.ts';
import { webhooksDoc } from './webhooks.ts';

type Json = Record<string, unknown>;

/**
 * The OpenAPI 3.1 document of the merchant API. Request bodies and query parameters are
 * converted from the valibot schemas the server validates with, so they cannot drift.
 * docs/openapi.json is this with the default server (npm run openapi writes it; a test
 * checks it is current).
 */
export function buildOpenApiDocument(options: { serverUrl?: string; methods?: MethodRegistry } = {}): Json {
  const methods = options.methods ?? builtinMethods;
  const examples = openApiExamples(methods);
  const { EXAMPLES, ERROR_EXAMPLES } = examples;
  const operation = (op: Operation) => operationOf(op, ERROR_EXAMPLES);
  return {
    openapi: '3.1.0',
    info: {
      title: 'payd merchant API',
      version: '1.0.0',
      description:
        'Create payment intents, follow them to settlement, cancel them, and catch up on events. ' +
        'Every /api/v1 call except this document needs both X-Client-ID and X-Client-Secret. ' +
        'Errors are {"detail", "code"} (INVALID_REQUEST adds "errors"). Amounts are JSON numbers in plain decimal.',
    },
    servers: [{ url: options.serverUrl ?? 'http://127.0.0.1:8080', description: 'your payd server (server.publicUrl)' }],
    security: [{ ClientId: [], ClientSecret: [] }],
    paths: {
      '/api/v1/intents/create-payment': {
        post: operation({
          id: 'createPayment',
          summary: 'Create a payment intent (idempotent on order_id)',
          body: { schema: withCurrencies(fromValibot(CreateBody), methods.ids), example: EXAMPLES.createRequest },
          ok: { schema: 'CreatedIntent', example: EXAMPLES.created },
          errors: ['INVALID_REQUEST', 'METHOD_UNSUPPORTED', 'AMOUNT_OUT_OF_RANGE', 'ORDER_ID_CONFLICT', 'PAYLOAD_TOO_LARGE', 'AMOUNT_UNAVAILABLE', 'RATE_UNAVAILABLE', 'PRICING_NOT_CONFIGURED', 'BUSY'],
        }),
      },
      '/api/v1/intents': {
        get: operation({
          id: 'listIntents',
          summary: 'List your intents, newest first (cursor pagination)',
          query: listIntentsQuery(methods.ids),
          ok: { schema: 'IntentPage', example: EXAMPLES.page },
          errors: ['INVALID_REQUEST'],
        }),
      },
      '/api/v1/intents/{intent_id}': {
        parameters: [intentIdParameter],
        get: operation({ id: 'getIntent', summary: 'Fetch an intent', ok: { schema: 'Intent', example: EXAMPLES.intent }, errors: ['INTENT_NOT_FOUND'] }),
      },
      '/api/v1/intents/{intent_id}/cancel': {
        parameters: [intentIdParameter],
        post: operation({
          id: 'cancelIntent',
          summary: 'Cancel a pending intent (again: returned unchanged)',
          description: 'Sends intent.canceled. The pay_amount stays reserved through the cooldown; a payment that still arrives is held on the intent (reason canceled, event payment.held) for you to refund or accept.',
          ok: { schema: 'Intent', example: EXAMPLES.canceled },
          errors: ['INTENT_NOT_FOUND', 'INTENT_NOT_CANCELABLE', 'BUSY'],
        }),
      },
      '/api/v1/intents/{intent_id}/payments/{transaction_hash}/accept': {
        parameters: [intentIdParameter, transactionHashParameter],
        post: operation({
          id: 'acceptPayment',
          summary: 'Accept a held payment: the intent settles with it (again: answered the same)',
          description: 'One payment.success with "accepted": true (and "underpaid_by" when short). 409 PAYMENT_NOT_ACCEPTABLE when the payment is not held for this intent or another payment settled it already.',
          ok: { schema: 'Intent', example: EXAMPLES.accepted },
          errors: ['INVALID_REQUEST', 'INTENT_NOT_FOUND', 'PAYMENT_NOT_ACCEPTABLE', 'BUSY'],
        }),
      },
      '/api/v1/intents/{intent_id}/payments/{transaction_hash}/refunded': {
        parameters: [intentIdParameter, transactionHashParameter],
        post: operation({
          id: 'markPaymentRefunded',
          summary: 'Record that you returned a held payment (payd moves no money; again: answered the same)',
          description: 'The payment reads status refunded; sends payment.refunded. 409 PAYMENT_NOT_ACCEPTABLE for a credited payment.',
          ok: { schema: 'Intent', example: EXAMPLES.refunded },
          errors: ['INVALID_REQUEST', 'INTENT_NOT_FOUND', 'PAYMENT_NOT_ACCEPTABLE', 'BUSY'],
        }),
      },
      '/api/v1/payment-links': {
        post: operation({
          id: 'createPaymentLink',
          summary: 'Create a payment link: a page with a title and a price (or an amount the customer enters) to forward or print as a QR code',
          description: 'Opening the link costs nothing: an intent (with link_id and an order_id the link numbers) is created only when the customer chooses a method on the page; you get payment.success for it as for any intent.',
          body: { schema: withCurrencies(fromValibot(CreateLinkBody), methods.ids, 'methods'), example: EXAMPLES.linkRequest },
          ok: { schema: 'PaymentLink', example: EXAMPLES.link },
          errors: ['INVALID_REQUEST', 'METHOD_UNSUPPORTED', 'PAYLOAD_TOO_LARGE'],
        }),
        get: operation({ id: 'listPaymentLinks', summary: 'Your payment links, newest first', query: ListLinksQuery, ok: { schema: 'PaymentLinkList', example: { data: [EXAMPLES.link] } }, errors: ['INVALID_REQUEST'] }),
      },
      '/api/v1/payment-links/{link_id}': {
        parameters: [linkIdParameter],
        get: operation({ id: 'getPaymentLink', summary: 'Fetch a payment link', ok: { schema: 'PaymentLink', example: EXAMPLES.link }, errors: ['NOT_FOUND'] }),
      },
      '/api/v1/payment-links/{link_id}/deactivate': {
        parameters: [linkIdParameter],
        post: operation({ id: 'deactivatePaymentLink', summary: 'Turn a link off: its page says so and creates nothing (again: answered the same)', ok: { schema: 'PaymentLink', example: { ...EXAMPLES.link, status: 'inactive' } }, errors: ['NOT_FOUND'] }),
      },
      '/api/v1/payment-links/{link_id}/activate': {
        parameters: [linkIdParameter],
        post: operation({ id: 'activatePaymentLink', summary: 'Turn a link on again (again: answered the same)', ok: { schema: 'PaymentLink', example: EXAMPLES.link }, errors: ['NOT_FOUND'] }),
      },
      '/api/v1/webhook-endpoint': {
        get: operation({ id: 'getWebhookEndpoint', summary: 'Your webhook URL and a hint of the signing secret', ok: { schema: 'WebhookEndpoint', example: EXAMPLES.webhookEndpoint }, errors: [] }),
        put: operation({
          id: 'setWebhookEndpoint',
          summary: 'Set (or with null remove) your webhook URL',
          body: { schema: WebhookEndpointBody, example: EXAMPLES.webhookEndpointRequest },
          ok: { schema: 'WebhookEndpoint', example: EXAMPLES.webhookEndpoint },
          errors: ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'BUSY'],
        }),
      },
      '/api/v1/webhook-endpoint/rotate-secret': {
        post: operation({
          id: 'rotateWebhookSecret',
          summary: 'New webhook signing secret (shown once); the previous one also signs during the grace period',
          ok: { schema: 'RotatedWebhookSecret', example: EXAMPLES.rotated },
          errors: [],
        }),
      },
      '/api/v1/events': {
        get: operation({
          id: 'listEvents',
          summary: 'Catch up on events in the order they were written (the webhooks\' ids and bodies)',
          query: EventsQuery,
          ok: { schema: 'EventPage', example: EXAMPLES.events },
          errors: ['INVALID_REQUEST'],
        }),
      },
      '/api/v1/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          security: [],
          responses: {
            '200': { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } },
            ...errorResponses(['RATE_LIMITED', 'INTERNAL'], ERROR_EXAMPLES),
          },
        },
      },
    },
    webhooks: webhooksDoc(examples),
    components: {
      securitySchemes: {
        ClientId: { type: 'apiKey', in: 'header', name: 'X-Client-ID', description: 'Your client id (UUID v4), from payd merchant create.' },
        ClientSecret: { type: 'apiKey', in: 'header', name: 'X-Client-Secret', description: 'Your client secret. Backend only: never in a web page or app.' },
      },
      schemas: apiSchemas(methods),
    },
  };
}

const transactionHashParameter = { name: 'transaction_hash', in: 'path', required: true, description: 'A transaction_hash from the intent\'s payments.', schema: { type: 'string', minLength: 1, maxLength: 200 } };

const linkIdParameter = { name: 'link_id', in: 'path', required: true, description: 'The link_id returned at creation (or the link\'s slug, the last part of its url).', schema: { type: 'string', minLength: 1, maxLength: 64 } };

const intentIdParameter = { name: 'intent_id', in: 'path', required: true, description: 'The intent_id returned at creation.', schema: { type: 'string', format: 'uuid' } };

/** Every authenticated call can answer these (BUSY: every one reads the database, which on PostgreSQL may be out of reach for a moment). */
const AUTH_ERRORS: ErrorCode[] = ['AUTH_INVALID_HEADERS', 'AUTH_INVALID_SECRET', 'RATE_LIMITED', 'BUSY', 'INTERNAL'];

function fromValibot(schema: v.GenericSchema): Json {
  // Custom checks (v.check) have no JSON Schema form; the server still runs them.
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'output', errorMode: 'ignore' }) as Json;
  return rest;
}

/** The create body with its currency's values: the methods this payd knows (the body's schema accepts any string). */
function withCurrencies(body: Json, ids: readonly string[], field: 'currency' | 'methods' = 'currency'): Json {
  const properties = body.properties as Record<string, Json>;
  const listed = field === 'currency' ? { ...properties.currency, enum: [...ids] } : { ...properties.methods, items: { type: 'string', enum: [...ids] } };
  return { ...body, properties: { ...properties, [field]: listed } };
}

function queryParameters(schema: v.GenericSchema): Json[] {
  const json = fromValibot(schema) as { properties: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties).map(([name, { description, ...s }]) => ({ name, in: 'query', required: (json.required ?? []).includes(name), description, schema: s }));
}

function errorResponses(codes: ErrorCode[], ERROR_EXAMPLES: Record<string, unknown>): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.join(' or '),
      ...(status === 429 || list.includes('BUSY') || list.includes('AMOUNT_UNAVAILABLE') || list.includes('RATE_UNAVAILABLE')
        ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying (AMOUNT_UNAVAILABLE: until the first of the held amounts is free again, or ask for another amount; RATE_UNAVAILABLE: until the next rate refresh, or price in the method\'s currency).', schema: { type: 'integer' } } } }
        : {}),
      content: {
        'application/json': {
          schema: errorSchema(list),
          examples: Object.fromEntries(list.map((c) => [c, { value: ERROR_EXAMPLES[c] }])),
        },
      },
    };
  }
  return out;
}

interface Operation {
  id: string;
  summary: string;
  description?: string;
  query?: v.GenericSchema;
  /** A valibot schema, or one already converted (and completed). */
  body?: { schema: v.GenericSchema | Json; example: unknown };
  ok: { schema: ApiSchemaName; example: unknown };
  errors: ErrorCode[];
}

function operationOf(o: Operation, ERROR_EXAMPLES: Record<string, unknown>): Json {
  return {
    operationId: o.id,
    summary: o.summary,
    ...(o.description ? { description: o.description } : {}),
    ...(o.query ? { parameters: queryParameters(o.query) } : {}),
    ...(o.body ? { requestBody: { required: true, content: { 'application/json': { schema: o.body.schema.kind === 'schema' ? fromValibot(o.body.schema as v.GenericSchema) : o.body.schema, example: o.body.example } } } } : {}),
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${o.ok.schema}` }, example: o.ok.example } } },
      ...errorResponses([...new Set([...o.errors, ...AUTH_ERRORS])], ERROR_EXAMPLES),
    },
  };
}

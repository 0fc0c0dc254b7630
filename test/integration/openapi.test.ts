import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as v from 'valibot';
import { buildOpenApiDocument } from '../../src/http/openapi/document.ts';
import { builtinMethods } from '../../src/methods/registry.ts';
import { WebhookEndpointBody } from '../../src/http/routes/webhook-endpoint.ts';
import { CreateBody } from '../../src/http/routes/intents.ts';
import { renderOpenApiFiles } from '../../scripts/openapi-files.ts';
import { createResponseChecker } from '../helpers/openapi.ts';
import { startPayd } from '../helpers/payd.ts';

const doc = buildOpenApiDocument() as any;
const OPERATIONS = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
    .map(([method, op]: [string, any]) => ({ path, method, op })),
);

test('the OpenAPI document is valid OpenAPI 3.1', async () => {
  const r = await new Validator().validate(doc);
  assert.equal(r.valid, true, JSON.stringify(r.errors, null, 2));
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(OPERATIONS.length, 16);
});

test('the document and the generated client types kept in the repo are current (npm run openapi)', async () => {
  for (const f of await renderOpenApiFiles()) {
    assert.equal(readFileSync(new URL(`../../${f.path}`, import.meta.url), 'utf8'), f.text, `${f.path} is stale: run npm run openapi`);
  }
});

test('it is served at /api/v1/openapi.json without credentials, naming this server', async (t) => {
  const p = await startPayd();
  t.after(() => p.close());
  const r = await p.api('GET', '/api/v1/openapi.json');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(r.body.servers, [{ url: 'https://pay.example.com', description: doc.servers[0].description }]);
  assert.deepEqual({ ...r.body, servers: doc.servers }, doc);
});

test('every operation documents its security, its success and every error code it can answer, with examples that validate', () => {
  const checker = createResponseChecker(doc);
  assert.deepEqual(doc.components.securitySchemes.ClientId, { type: 'apiKey', in: 'header', name: 'X-Client-ID', description: doc.components.securitySchemes.ClientId.description });
  assert.equal(doc.components.securitySchemes.ClientSecret.name, 'X-Client-Secret');
  assert.deepEqual(doc.security, [{ ClientId: [], ClientSecret: [] }]);
  for (const { path, method, op } of OPERATIONS) {
    const where = `${method.toUpperCase()} ${path}`;
    const statuses = Object.keys(op.responses);
    if (op.operationId !== 'getOpenApiDocument') {
      for (const s of ['200', '401', '403', '429', '500']) assert.ok(statuses.includes(s), `${where} lacks ${s}`);
    } else {
      assert.deepEqual(op.security, []);
    }
    for (const status of statuses) {
      const media = op.responses[status].content['application/json'];
      const examples = media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((e: any) => e.value);
      assert.ok(examples.length > 0 || op.operationId === 'getOpenApiDocument', `${where} ${status} has no example`);
      const url = path.replace('{intent_id}', '3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10');
      for (const ex of examples) assert.equal(checker.check(method.toUpperCase(), url, Number(status), 'application/json', ex), undefined);
      if (status !== '200') {
        // Each error status lists its codes, and each code's status is that status.
        for (const code of media.schema.properties.code.enum) assert.ok(media.examples[code], `${where} ${status}: no example for ${code}`);
      }
    }
  }
  // The webhooks, with their Standard Webhooks headers and bodies; their examples validate.
  assert.deepEqual(Object.keys(doc.webhooks), ['payment.success', 'payment.held', 'payment.refunded', 'intent.expired', 'intent.canceled', 'webhook.test']);
  for (const [type, item] of Object.entries(doc.webhooks) as Array<[string, any]>) {
    assert.deepEqual(item.post.parameters.map((h: any) => h.name), ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    assert.equal(checker.checkWebhook(item.post.requestBody.content['application/json'].example), undefined, type);
  }
  assert.match(checker.checkWebhook({ type: 'payment.success', timestamp: '2026-11-22T10:00:00.000Z', data: {} }) ?? '', /required/);
  const codes = (path: string, method: string) => Object.values(doc.paths[path][method].responses).flatMap((r: any) => r.content['application/json'].schema.properties?.code?.enum ?? []);
  assert.ok(codes('/api/v1/intents/{intent_id}/cancel', 'post').includes('INTENT_NOT_CANCELABLE'));
  assert.ok(codes('/api/v1/intents/{intent_id}/payments/{transaction_hash}/accept', 'post').includes('PAYMENT_NOT_ACCEPTABLE'));
  assert.ok(codes('/api/v1/intents/create-payment', 'post').includes('ORDER_ID_CONFLICT'));
  assert.ok(codes('/api/v1/intents/create-payment', 'post').includes('AMOUNT_UNAVAILABLE'));
  // AMOUNT_UNAVAILABLE answers with Retry-After (when the first held amount is free again).
  assert.match(doc.paths['/api/v1/intents/create-payment'].post.responses['503'].headers['Retry-After'].description, /AMOUNT_UNAVAILABLE/);
  assert.ok(!codes('/api/v1/intents', 'get').includes('INTENT_NOT_FOUND'));
});

test('request schemas come from the server\'s valibot schemas: they accept and refuse the same bodies', () => {
  const ajv = new Ajv2020({ strict: false });
  const check = (schema: v.GenericSchema, json: object, bodies: unknown[]) => {
    const validate = ajv.compile(json);
    for (const body of bodies) assert.equal(validate(body), v.safeParse(schema, body).success, JSON.stringify(body));
  };
  const create = doc.paths['/api/v1/intents/create-payment'].post.requestBody.content['application/json'].schema;
  check(CreateBody, create, [
    { amount: 100.5, currency: 'UPI', order_id: 'ORD-1' },
    { amount: 1, currency: 'SOL', order_id: 'x', return_url: 'https://shop.example.com/done' },
    { currency: 'UPI', order_id: 'ORD-1' },
    { amount: '100', currency: 'UPI', order_id: 'ORD-1' },
    { amount: 0, currency: 'UPI', order_id: 'ORD-1' },
    { amount: -1, currency: 'UPI', order_id: 'ORD-1' },
    { amount: 1, currency: 7, order_id: 'ORD-1' },
    { amount: 1, currency: 'UPI', order_id: '' },
    { amount: 1, currency: 'UPI', order_id: 'x'.repeat(129) },
    { amount: 1, currency: 'UPI', order_id: 'x'.repeat(128) },
    { amount: 1, currency: 'UPI', order_id: 'x', return_url: 5 },
    { amount: 1, currency: 'UPI', order_id: 'x', return_url: 'x'.repeat(2049) },
  ]);
  const put = doc.paths['/api/v1/webhook-endpoint'].put.requestBody.content['application/json'].schema;
  check(WebhookEndpointBody, put, [{ url: 'https://a.example/h' }, { url: null }, {}, { url: 5 }, { url: 'https://a.example', extra: 1 }, { url: 'x'.repeat(2049) }]);
  // Query parameters: the list's limit is an integer 1..100, status and currency closed sets.
  const params = Object.fromEntries(doc.paths['/api/v1/intents'].get.parameters.map((p: any) => [p.name, p.schema]));
  assert.deepEqual(params.limit, { type: 'integer', minimum: 1, maximum: 100 });
  assert.deepEqual(params.status.enum, ['pending', 'settled', 'expired', 'canceled']);
  // Every method the registry lists (a family's line, a token's row), in its order.
  assert.deepEqual(params.currency.enum, builtinMethods.ids);
  assert.ok(params.currency.enum.includes('USDC_SOL'));
  assert.ok(params.currency.enum.includes('USDC_BASE'));
});

test('the response checker catches an undocumented field, a wrong type and an undocumented status', () => {
  const checker = createResponseChecker(doc);
  const ok = { ...doc.paths['/api/v1/intents/{intent_id}'].get.responses['200'].content['application/json'].example };
  const url = '/api/v1/intents/3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10';
  assert.equal(checker.check('GET', url, 200, 'application/json', ok), undefined);
  assert.match(checker.check('GET', url, 200, 'application/json', { ...ok, surprise: 1 }) ?? '', /additional properties/);
  assert.match(checker.check('GET', url, 200, 'application/json', { ...ok, amount: '100.5' }) ?? '', /must be number/);
  assert.match(checker.check('GET', url, 409, 'application/json', { detail: 'x', code: 'CONFLICT' }) ?? '', /status not documented/);
  assert.match(checker.check('GET', url, 404, 'application/json', { detail: 'x', code: 'NOT_FOUND' }) ?? '', /allowed values/);
  assert.match(checker.check('GET', url, 200, 'text/html', ok) ?? '', /content-type/);
});

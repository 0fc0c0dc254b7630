import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkedFetch } from '../helpers/openapi.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';

// Every row of the error table (docs/api.md), against a real server on 127.0.0.1.
describe('API errors', () => {
  let p: PaydHarness;
  let m: Awaited<ReturnType<PaydHarness['merchant']>>;
  const create = (body: unknown, headers = m.headers) => p.api('POST', '/api/v1/intents/create-payment', { body, headers });
  const valid = { amount: 100.5, currency: 'UPI', order_id: 'ORD-1' };

  before(async () => {
    p = await startPayd();
    m = await p.merchant();
  });
  after(() => p.close());

  const assertError = (r: { status: number; body: any; headers: Headers }, status: number, code: string) => {
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.code, code);
    assert.equal(typeof r.body.detail, 'string');
    assert.ok(r.body.detail.length > 0);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json; charset=utf-8/);
  };

  test('AUTH_INVALID_HEADERS 401 when either header is missing or empty', async () => {
    assertError(await create(valid, {}), 401, 'AUTH_INVALID_HEADERS');
    assertError(await create(valid, { 'x-client-id': m.clientId }), 401, 'AUTH_INVALID_HEADERS');
    assertError(await create(valid, { 'x-client-secret': m.secret }), 401, 'AUTH_INVALID_HEADERS');
    assertError(await create(valid, { 'x-client-id': m.clientId, 'x-client-secret': '' }), 401, 'AUTH_INVALID_HEADERS');
    assertError(await p.api('GET', '/api/v1/intents/00000000-0000-4000-8000-000000000000'), 401, 'AUTH_INVALID_HEADERS');
  });

  test('AUTH_INVALID_SECRET 403 with one message for wrong secret, unknown, malformed or revoked client', async () => {
    const wrong = await create(valid, { 'x-client-id': m.clientId, 'x-client-secret': m.secret + 'x' });
    assertError(wrong, 403, 'AUTH_INVALID_SECRET');
    assert.equal(wrong.body.detail, 'invalid credentials');
    const unknown = await create(valid, { 'x-client-id': '5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10', 'x-client-secret': m.secret });
    assertError(unknown, 403, 'AUTH_INVALID_SECRET');
    assert.equal(unknown.body.detail, wrong.body.detail);
    assertError(await create(valid, { 'x-client-id': 'not-a-uuid', 'x-client-secret': m.secret }), 403, 'AUTH_INVALID_SECRET');
    const revoked = await p.merchant('Revoked shop');
    await p.app.merchants.revoke(revoked.clientId);
    assertError(await create(valid, revoked.headers), 403, 'AUTH_INVALID_SECRET');
  });

  test('INVALID_REQUEST 400 for bodies that are not a valid create request, with field errors', async () => {
    const raw = (text: string) => p.api('POST', '/api/v1/intents/create-payment', { raw: text, headers: { ...m.headers, 'content-type': 'application/json' } });
    assertError(await raw('{not json'), 400, 'INVALID_REQUEST');
    assertError(await raw(''), 400, 'INVALID_REQUEST');
    assertError(await raw('[1,2]'), 400, 'INVALID_REQUEST');
    assertError(await raw('"x"'), 400, 'INVALID_REQUEST');
    const cases: [unknown, string][] = [
      [{ currency: 'UPI', order_id: 'a' }, 'amount'],
      // A decimal string is an exact amount (18-decimal tokens); anything else that is not a number is refused.
      [{ amount: 'ten', currency: 'UPI', order_id: 'a' }, 'amount'],
      [{ amount: '1e3', currency: 'UPI', order_id: 'a' }, 'amount'],
      [{ amount: true, currency: 'UPI', order_id: 'a' }, 'amount'],
      [{ amount: 0, currency: 'UPI', order_id: 'a' }, 'amount'],
      [{ amount: -5, currency: 'UPI', order_id: 'a' }, 'amount'],
      [{ amount: 10, order_id: 'a' }, 'currency'],
      [{ amount: 10, currency: 7, order_id: 'a' }, 'currency'],
      [{ amount: 10, currency: 'UPI' }, 'order_id'],
      [{ amount: 10, currency: 'UPI', order_id: '' }, 'order_id'],
      [{ amount: 10, currency: 'UPI', order_id: 'x'.repeat(129) }, 'order_id'],
      [{ amount: 10, currency: 'UPI', order_id: 42 }, 'order_id'],
      [{ amount: 10, currency: 'UPI', order_id: 'ok', return_url: 'javascript:alert(1)' }, 'return_url'],
    ];
    for (const [body, field] of cases) {
      const r = await create(body);
      assertError(r, 400, 'INVALID_REQUEST');
      assert.ok(r.body.errors.some((e: any) => e.field === field), `${JSON.stringify(body)} → ${JSON.stringify(r.body.errors)}`);
    }
    // Text that would read differently than it is stored, in Telegram, e-mail and the console: refused, the 400 naming the field and the character.
    const spoofs: Array<[string, string]> = [
      ['ORD-\u202E1-FDP', 'U+202E'],
      ['ORD-\u202A1', 'U+202A'],
      ['ORD-\u2066x\u2069', 'U+2066'],
      ['ORD-\u200F1', 'U+200F'],
      ['ORD-\u200E1', 'U+200E'],
      ['ORD-\u061C1', 'U+061C'],
      ['ORD-1\u2028Paid: ₹9,999', 'U+2028'],
      ['ORD-1\u2029x', 'U+2029'],
      ['ORD-\u00851', 'U+0085'],
      ['ORD-\n1', 'U+000A'],
    ];
    for (const [orderId, cp] of spoofs) {
      const r = await create({ amount: 10, currency: 'UPI', order_id: orderId });
      assertError(r, 400, 'INVALID_REQUEST');
      assert.deepEqual(r.body.errors, [{ field: 'order_id', message: `order_id must not contain ${cp} (a control, line-break or text-direction character)` }], JSON.stringify(orderId));
    }
    assert.equal((await create({ amount: 10, currency: 'UPI', order_id: 'ORD-ह-٣-Ω' })).status, 200, 'other scripts are fine');
    // 1e400 parses to Infinity: not finite.
    assertError(await raw('{"amount": 1e400, "currency": "UPI", "order_id": "inf"}'), 400, 'INVALID_REQUEST');
    // More decimals than the method has (UPI: paise) is a shape error after the method check.
    const precise = await create({ amount: 10.001, currency: 'UPI', order_id: 'dec' });
    assertError(precise, 400, 'INVALID_REQUEST');
    assert.deepEqual(precise.body.errors.map((e: any) => e.field), ['amount']);
  });

  test('METHOD_UNSUPPORTED 400 for an unknown, wrongly cased or disabled currency', async () => {
    for (const currency of ['BTC', 'upi', '', 'USDT']) assertError(await create({ ...valid, currency, order_id: `m-${currency}` }), 400, 'METHOD_UNSUPPORTED');
    const only = await startPayd({ config: { methods: { USDT_TRC20: undefined, SOL: undefined, USDT_SOL: undefined } } });
    try {
      const mm = await only.merchant();
      const r = await only.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1, currency: 'SOL', order_id: 'x' }, headers: mm.headers });
      assertError(r, 400, 'METHOD_UNSUPPORTED');
    } finally {
      await only.close();
    }
  });

  test('AMOUNT_OUT_OF_RANGE 400 outside the method min/max', async () => {
    assertError(await create({ amount: 0.5, currency: 'UPI', order_id: 'low' }), 400, 'AMOUNT_OUT_OF_RANGE');
    assertError(await create({ amount: 100000.01, currency: 'UPI', order_id: 'high' }), 400, 'AMOUNT_OUT_OF_RANGE');
    assert.equal((await create({ amount: 100000, currency: 'UPI', order_id: 'max' })).status, 200);
    // No maximum configured for SOL: the storable range (38 digits of base units) still bounds it.
    assertError(await create({ amount: 1e30, currency: 'SOL', order_id: 'huge' }), 400, 'AMOUNT_OUT_OF_RANGE');
  });

  test('ORDER_ID_CONFLICT 409 for the same order_id with another amount or currency', async () => {
    assert.equal((await create({ amount: 50, currency: 'UPI', order_id: 'dup' })).status, 200);
    assertError(await create({ amount: 51, currency: 'UPI', order_id: 'dup' }), 409, 'ORDER_ID_CONFLICT');
    assertError(await create({ amount: 50, currency: 'SOL', order_id: 'dup' }), 409, 'ORDER_ID_CONFLICT');
  });

  test('INTENT_NOT_FOUND 404 for unknown, malformed and other merchants\' intents', async () => {
    const mine = await create({ amount: 20, currency: 'UPI', order_id: 'mine' });
    const other = await p.merchant('Other shop');
    assertError(await p.api('GET', `/api/v1/intents/${mine.body.intent_id}`, { headers: other.headers }), 404, 'INTENT_NOT_FOUND');
    assertError(await p.api('GET', '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10', { headers: m.headers }), 404, 'INTENT_NOT_FOUND');
    assertError(await p.api('GET', '/api/v1/intents/not-a-uuid', { headers: m.headers }), 404, 'INTENT_NOT_FOUND');
    assertError(await p.api('GET', "/api/v1/intents/1'%20OR%201=1", { headers: m.headers }), 404, 'INTENT_NOT_FOUND');
  });

  test('PAYLOAD_TOO_LARGE 413 over 16 KiB, declared or streamed', async () => {
    const big = JSON.stringify({ ...valid, order_id: 'big', pad: 'x'.repeat(17 * 1024) });
    assertError(await p.api('POST', '/api/v1/intents/create-payment', { raw: big, headers: { ...m.headers, 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    // Chunked (no Content-Length): the limit still holds while streaming.
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        c.close();
      },
    });
    const res = await checkedFetch()(p.url + '/api/v1/intents/create-payment', { method: 'POST', headers: m.headers, body: stream, duplex: 'half' } as RequestInit);
    assert.equal(res.status, 413);
    assert.equal((await res.json()).code, 'PAYLOAD_TOO_LARGE');
  });

  test('RATE_LIMITED 429 with Retry-After past the per-client rate', async () => {
    const limited = await startPayd({ config: { server: { rateLimit: { perSecond: 1, burst: 3 } } } });
    try {
      const mm = await limited.merchant();
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push(await limited.api('GET', '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10', { headers: mm.headers }));
      assert.deepEqual(statuses.map((r) => r.status), [404, 404, 404, 429, 429]);
      assertError(statuses[4], 429, 'RATE_LIMITED');
      assert.ok(Number(statuses[4].headers.get('retry-after')) >= 1);
      // Another client has its own bucket.
      const other = await limited.merchant('Other');
      assert.equal((await limited.api('GET', '/api/v1/intents/x', { headers: other.headers })).status, 404);
    } finally {
      await limited.close();
    }
  });

  test('AMOUNT_UNAVAILABLE 503 when no unique pay_amount is left', async () => {
    const tight = await startPayd({ config: { methods: { SOL: { wallet: (await import('../helpers/payd.ts')).RECEIVERS.SOL, maxOffsetSteps: 2, maxSurchargePercent: 0 } } } });
    try {
      const mm = await tight.merchant();
      const mk = (i: number) => tight.api('POST', '/api/v1/intents/create-payment', { body: { amount: 1, currency: 'SOL', order_id: `o${i}` }, headers: mm.headers });
      const pays = [];
      // Offsets 0..2 of a whole 1 SOL, less the whole 1 SOL itself (never handed out): two amounts.
      for (let i = 0; i < 2; i++) pays.push((await mk(i)).body.pay_amount);
      assert.deepEqual(pays, [1.000001, 1.000002]);
      assertError(await mk(2), 503, 'AMOUNT_UNAVAILABLE');
    } finally {
      await tight.close();
    }
  });

  test('NOT_FOUND 404 for unknown routes and METHOD_NOT_ALLOWED 405 for wrong verbs, whatever the credentials', async () => {
    assertError(await p.api('GET', '/nope'), 404, 'NOT_FOUND');
    assertError(await p.api('GET', '/%ZZ'), 404, 'NOT_FOUND');
    assertError(await p.api('GET', '/api/v1/intents/%ZZ', { headers: m.headers }), 404, 'INTENT_NOT_FOUND');
    assertError(await p.api('GET', '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10/refund'), 404, 'NOT_FOUND');
    assertError(await p.api('POST', '/api/v2/intents/create-payment', { body: valid, headers: m.headers }), 404, 'NOT_FOUND');
    assertError(await p.api('GET', '/api/v1/intents/create-payment', { headers: m.headers }), 405, 'METHOD_NOT_ALLOWED');
    assertError(await p.api('DELETE', '/api/v1/intents/6f1d2c9e-2f0b-4b8a-9a57-3f6f1d2c9e10'), 405, 'METHOD_NOT_ALLOWED');
  });

  test('INTERNAL 500 never leaks a stack trace or SQL', async () => {
    const broken = await startPayd();
    try {
      const mm = await broken.merchant();
      await broken.app.db.schema.dropTable('amount_reservations').execute();
      const r = await broken.api('POST', '/api/v1/intents/create-payment', { body: valid, headers: mm.headers });
      assertError(r, 500, 'INTERNAL');
      assert.equal(r.body.detail, 'internal error');
      assert.doesNotMatch(r.text, /amount_reservations|SqliteError|at .*\.ts/);
    } finally {
      await broken.close();
    }
  });

  test('checks run in order: credentials before body size before body shape before currency', async () => {
    const huge = JSON.stringify({ pad: 'x'.repeat(20 * 1024) });
    assertError(await p.api('POST', '/api/v1/intents/create-payment', { raw: huge, headers: { 'content-type': 'application/json' } }), 401, 'AUTH_INVALID_HEADERS');
    assertError(await p.api('POST', '/api/v1/intents/create-payment', { raw: huge, headers: { ...m.headers, 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    assertError(await create({ amount: 'x', currency: 'BTC', order_id: 'o' }), 400, 'INVALID_REQUEST');
    assertError(await create({ amount: 0.5, currency: 'BTC', order_id: 'o' }), 400, 'METHOD_UNSUPPORTED');
    assertError(await create({ amount: 0.001, currency: 'UPI', order_id: 'o' }), 400, 'INVALID_REQUEST');
  });
});

// @payd/client's verifyWebhook against an independent Standard Webhooks implementation (the
// `standardwebhooks` package signs, ours verifies, and the reverse), and at its edges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.ts';
import { parseRetryAfter } from '../../packages/client/src/transport.ts';
import { signatureFor } from '../../src/webhooks/sign.ts';

const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const previous = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const body = JSON.stringify({ type: 'intent.canceled', timestamp: '2026-11-22T10:00:00.000Z', data: { intent_id: '3f0c2a8e-6a1b-4c55-9d1e-0b7f2f4c9a10', status: 'canceled' } });
const at = new Date('2026-11-22T10:00:00Z');
const now = () => at.getTime();
const signed = (signature: string, id = 'evt_1', timestamp = at) => ({ 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': signature });
const refused = (p: Promise<unknown>, why: RegExp) => assert.rejects(p, (err: unknown) => err instanceof WebhookVerificationError && why.test(err.message));

test('a signature made by the standardwebhooks library verifies, from a string, a Buffer, an ArrayBuffer or a Headers', async () => {
  const headers = signed(new Webhook(secret).sign('evt_1', at, body));
  const verified = await verifyWebhook(body, headers, secret, { now });
  assert.deepEqual(verified, { ...JSON.parse(body), id: 'evt_1' });
  const bytes = Buffer.from(body);
  assert.equal((await verifyWebhook(bytes, headers, [secret], { now })).id, 'evt_1');
  assert.equal((await verifyWebhook(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), new Headers(headers), [secret], { now })).id, 'evt_1');
  assert.equal((await verifyWebhook(body, { 'Webhook-Id': 'evt_1', 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'webhook-signature': [headers['webhook-signature']] }, secret, { now })).id, 'evt_1');
  // A secret given as bare base64 (no whsec_ prefix) is the same key.
  assert.equal((await verifyWebhook(body, headers, secret.slice(6), { now })).id, 'evt_1');
});

test('what payd signs, the standardwebhooks library verifies too: both sides agree on the format', async () => {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = { 'webhook-id': 'evt_2', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureFor(secret, 'evt_2', timestamp, body) };
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  assert.equal((await verifyWebhook(body, headers, secret)).id, 'evt_2');
});

test('rotation: any of several secrets, any of several signatures; other versions and garbage ignored', async () => {
  const old = signatureFor(previous, 'evt_1', at.getTime() / 1000, body);
  const fresh = signatureFor(secret, 'evt_1', at.getTime() / 1000, body);
  const both = signed(`${fresh} ${old}`);
  assert.equal((await verifyWebhook(body, both, [previous], { now })).id, 'evt_1');
  assert.equal((await verifyWebhook(body, both, [secret], { now })).id, 'evt_1');
  assert.equal((await verifyWebhook(body, signed(old), [secret, previous], { now })).id, 'evt_1');
  assert.equal((await verifyWebhook(body, signed(`v1a,${fresh.slice(3)} v1,!!notbase64 ${old}`), [previous], { now })).id, 'evt_1');
  await refused(verifyWebhook(body, signed(old), [secret], { now }), /no webhook-signature matches/);
  await refused(verifyWebhook(body, signed(`v1a,${fresh.slice(3)}`), [secret], { now }), /no webhook-signature matches/);
  await refused(verifyWebhook(body, signed(fresh.slice(3)), [secret], { now }), /no webhook-signature matches/);
  // A signature of another id or timestamp over the same body is not this delivery's.
  await refused(verifyWebhook(body, signed(fresh, 'evt_9'), [secret], { now }), /no webhook-signature matches/);
  await refused(verifyWebhook(body, signed(fresh, 'evt_1', new Date(at.getTime() + 1000)), [secret], { now }), /no webhook-signature matches/);
});

test('the timestamp: within 5 minutes either way by default, the tolerance configurable, a malformed one refused', async () => {
  const headers = signed(new Webhook(secret).sign('evt_1', at, body));
  assert.ok(await verifyWebhook(body, headers, secret, { now: () => now() + 300_000 }));
  assert.ok(await verifyWebhook(body, headers, secret, { now: () => now() - 300_000 }));
  await refused(verifyWebhook(body, headers, secret, { now: () => now() + 301_000 }), /tolerance/);
  await refused(verifyWebhook(body, headers, secret, { now: () => now() - 301_000 }), /tolerance/);
  assert.ok(await verifyWebhook(body, headers, secret, { now: () => now() + 3_000_000, toleranceSeconds: 3600 }));
  await refused(verifyWebhook(body, { ...headers, 'webhook-timestamp': '1.7e9' }, secret, { now }), /Unix time/);
  await refused(verifyWebhook(body, { ...headers, 'webhook-timestamp': '' }, secret, { now }), /missing/);
  await refused(verifyWebhook(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': headers['webhook-timestamp'] }, secret, { now }), /missing/);
});

test('a signed body that is not JSON is refused; a call without a usable secret is a programming error', async () => {
  const text = 'not json';
  await refused(verifyWebhook(text, signed(new Webhook(secret).sign('evt_1', at, text)), secret, { now }), /not JSON/);
  await assert.rejects(verifyWebhook(body, signed('v1,x'), [], { now }), TypeError);
  await assert.rejects(verifyWebhook(body, signed('v1,x'), 'whsec_***', { now }), TypeError);
});

test('Retry-After: seconds or an HTTP date', () => {
  assert.equal(parseRetryAfter('3'), 3);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
  const t = Date.parse('2026-11-22T10:00:00Z');
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 10:00:07 GMT', t), 7);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 09:59:00 GMT', t), 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { PaydError } from '../../../src/domain/errors.ts';
import { nextStep } from '../../../src/webhooks/retry.ts';
import { signatureFor, webhookHeaders } from '../../../src/webhooks/sign.ts';
import { checkWebhookUrl } from '../../../src/domain/webhook-url.ts';

const fixed = (f: number) => ({ bytes: (n: number) => new Uint8Array(n), uuid: () => '', float: () => f });

test('signatures verify with the standardwebhooks library', () => {
  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  const ts = Math.floor(Date.now() / 1000);
  const h = webhookHeaders([secret], 'evt_1', ts, '{"a":1}');
  assert.deepEqual(new Webhook(secret).verify('{"a":1}', h), { a: 1 });
  assert.throws(() => new Webhook(secret).verify('{"a":2}', h));
  assert.match(signatureFor(secret, 'evt_1', ts, 'x'), /^v1,[A-Za-z0-9+/]+=*$/);
});

test('retry schedule: immediate first attempt, then schedule[k-1] ± 20 %, 410 stops, then failed', () => {
  const schedule = [5, 300];
  assert.deepEqual(nextStep(204, 1, schedule, 0, fixed(0.5)), { kind: 'delivered' });
  assert.deepEqual(nextStep(500, 1, schedule, 0, fixed(0.5)), { kind: 'retry', atMs: 5000 });
  assert.deepEqual(nextStep(null, 1, schedule, 0, fixed(0)), { kind: 'retry', atMs: 4000 });
  assert.deepEqual(nextStep(null, 1, schedule, 0, fixed(0.999999)), { kind: 'retry', atMs: 6000 });
  assert.deepEqual(nextStep(500, 2, schedule, 1000, fixed(0.5)), { kind: 'retry', atMs: 301_000 });
  assert.equal(nextStep(500, 3, schedule, 0, fixed(0.5)).kind, 'failed');
  assert.equal(nextStep(410, 1, schedule, 0, fixed(0.5)).kind, 'failed');
  assert.equal(nextStep(301, 1, schedule, 0, fixed(0.5)).kind, 'retry');
});

test('webhook URLs: https anywhere, http only to loopback (an operator opt-in) unless allowed', () => {
  const strict = { allowInsecure: false, allowLoopback: false, allowPrivateNetworks: false };
  const loop = { allowInsecure: false, allowLoopback: true, allowPrivateNetworks: false };
  assert.ok(checkWebhookUrl('https://shop.example.com/h', strict));
  assert.ok(checkWebhookUrl('http://127.0.0.1:9/h', loop));
  assert.ok(checkWebhookUrl('http://[::1]:9/h', loop));
  assert.ok(checkWebhookUrl('http://localhost/h', loop));
  assert.ok(checkWebhookUrl('https://localhost/h', loop));
  assert.ok(checkWebhookUrl('http://shop.example.com/h', { allowInsecure: true, allowLoopback: false, allowPrivateNetworks: false }));
  for (const bad of ['http://shop.example.com/h', 'http://10.0.0.1/h', 'ftp://x/y', 'not a url', 'https://user:pw@x.com/']) {
    assert.throws(() => checkWebhookUrl(bad, loop), (e: unknown) => e instanceof PaydError && e.code === 'INVALID_REQUEST', bad);
  }
  // Without webhooks.allowLoopback no merchant may point its webhooks at the daemon's own host.
  for (const bad of ['http://127.0.0.1:9/h', 'https://127.8.9.10/h', 'http://[::1]:9/h', 'https://localhost/h', 'https://a.localhost/h', 'http://[::ffff:127.0.0.1]/h']) {
    assert.throws(() => checkWebhookUrl(bad, strict), (e: unknown) => e instanceof PaydError && e.code === 'INVALID_REQUEST' && /loopback/.test(e.message), bad);
  }
  // A private or metadata literal, also carried in NAT64 / 6to4, is refused when set; allowPrivateNetworks lets it through.
  for (const bad of ['https://10.0.0.1/h', 'https://[64:ff9b::a9fe:a9fe]/h', 'https://[64:ff9b:1:a9fe:a9:fe00::]/h', 'https://[2002:a9fe:a9fe::1]/h', 'https://[fc00::5]/h']) {
    assert.throws(() => checkWebhookUrl(bad, loop), (e: unknown) => e instanceof PaydError && /a private, link-local or reserved address/.test(e.message) && /webhooks\.allowPrivateNetworks/.test(e.message), bad);
    assert.ok(checkWebhookUrl(bad, { ...loop, allowPrivateNetworks: true }), bad);
  }
  // Loopback carried in NAT64 is loopback: allowed exactly where loopback is.
  assert.ok(checkWebhookUrl('https://[64:ff9b::7f00:1]/h', loop));
  assert.throws(() => checkWebhookUrl('https://[64:ff9b::7f00:1]/h', strict), /loopback/);
});

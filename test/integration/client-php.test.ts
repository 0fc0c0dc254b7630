// The PHP library (packages/php) against a real `payd serve --sandbox`, run by Debian's php-cli
// with php-curl: each call is one `php packages/php/tests/call.php <method> <args>`, whose JSON
// outcome (the answer, or the exception's class and fields) is asserted here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startSandboxDaemon, type SandboxDaemon } from '../helpers/sandbox-daemon.ts';
import { waitFor } from '../helpers/wait.ts';

const CALL = fileURLToPath(new URL('../../packages/php/tests/call.php', import.meta.url));

let payd: SandboxDaemon;
before(async () => {
  payd = await startSandboxDaemon();
});
after(() => payd.close());

interface Outcome {
  ok?: any;
  error?: { class: string; status?: number; code?: string; detail?: string; errors?: Array<{ field: string; message: string }>; retryAfter?: number | null; message: string };
  sent: string[];
  done: number;
}

/** One call of the PHP library, as a shop's PHP backend makes it. */
function php(
  method: string,
  args: unknown[] = [],
  o: { daemon?: SandboxDaemon; as?: { clientId: string; clientSecret: string }; options?: Record<string, unknown>; secret?: string; times?: number } = {},
): Promise<Outcome> {
  const d = o.daemon ?? payd;
  const as = o.as ?? d;
  const env = {
    ...process.env,
    PAYD_URL: d.url,
    PAYD_CLIENT_ID: as.clientId,
    PAYD_CLIENT_SECRET: o.secret ?? as.clientSecret,
    PAYD_OPTIONS: JSON.stringify({ retry_delay_ms: 10, ...o.options }),
    PAYD_TIMES: String(o.times ?? 1),
  };
  return new Promise((resolve, reject) =>
    execFile('php', [CALL, method, JSON.stringify(args)], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`php ${method} failed: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout));
    }),
  );
}
const ok = async (method: string, args: unknown[] = [], o = {}) => {
  const r = await php(method, args, o);
  assert.equal(r.error, undefined, `${method}: ${JSON.stringify(r.error)}`);
  return r.ok;
};
const failure = async (method: string, args: unknown[] = [], o = {}) => {
  const r = await php(method, args, o);
  assert.ok(r.error, `${method} should fail: ${JSON.stringify(r.ok)}`);
  return r.error;
};
const delivery = (type: string, intentId: string) =>
  waitFor(async () => payd.receiver.received.find((r) => JSON.parse(r.body).type === type && JSON.parse(r.body).data.intent_id === intentId), 15_000, `${type} for ${intentId}`);

test('PHP: create (idempotent on order_id) → fetch → list across pages → cancel; errors thrown as ApiException with code', async () => {
  const created = await ok('createIntent', [{ amount: '120.50', currency: 'UPI', order_id: 'php-1' }]);
  assert.equal(created.status, 'pending');
  assert.equal(created.amount, 120.5);
  assert.equal((await ok('createIntent', [{ amount: '120.50', currency: 'UPI', order_id: 'php-1' }])).intent_id, created.intent_id);
  assert.equal((await ok('getIntent', [created.intent_id])).order_id, 'php-1');

  const ids = [created.intent_id];
  for (let i = 2; i <= 5; i++) ids.push((await ok('createIntent', [{ amount: `${i}.25`, currency: 'UPI', order_id: `php-${i}` }])).intent_id);
  const listed = await php('listIntents', [{ currency: 'UPI', status: 'pending', limit: 2 }]);
  assert.deepEqual(listed.ok.map((x: any) => x.intent_id), [...ids].reverse());
  assert.equal(listed.sent.length, 3, 'three pages of at most two');

  const canceled = await ok('cancelIntent', [created.intent_id]);
  assert.equal(canceled.status, 'canceled');

  const conflict = await failure('createIntent', [{ amount: '99', currency: 'UPI', order_id: 'php-1' }]);
  assert.deepEqual([conflict.class, conflict.status, conflict.code], ['Payd\\Exception\\ApiException', 409, 'ORDER_ID_CONFLICT']);
  const invalid = await failure('createIntent', [{ amount: 'ten', currency: 'UPI', order_id: 'php-x' }]);
  assert.deepEqual([invalid.status, invalid.code], [400, 'INVALID_REQUEST']);
  assert.ok(invalid.errors?.some((e) => e.field === 'amount'), JSON.stringify(invalid.errors));
  const missing = await failure('getIntent', ['00000000-0000-4000-8000-000000000000']);
  assert.deepEqual([missing.status, missing.code], [404, 'INTENT_NOT_FOUND']);
  const settled = await ok('createIntent', [{ amount: '15', currency: 'UPI', order_id: 'php-paid' }]);
  assert.equal((await payd.pay(settled.intent_id)).code, 0);
  const notCancelable = await failure('cancelIntent', [settled.intent_id]);
  assert.deepEqual([notCancelable.status, notCancelable.code], [409, 'INTENT_NOT_CANCELABLE']);
  const wrongSecret = await failure('getIntent', [settled.intent_id], { secret: 'sk_test_wrong' });
  assert.deepEqual([wrongSecret.status, wrongSecret.code], [403, 'AUTH_INVALID_SECRET']);
});

test('PHP: held payments accepted and refunded; the webhook endpoint set; events resumed from a cursor', async () => {
  const short = await ok('createIntent', [{ amount: '250', currency: 'UPI', order_id: 'php-held-1' }]);
  await payd.pay(short.intent_id, '249.50');
  const held = (await ok('getIntent', [short.intent_id])).payments.find((x: any) => x.status === 'held');
  assert.equal((await ok('acceptPayment', [short.intent_id, held.transaction_hash])).status, 'settled');
  const other = await ok('createIntent', [{ amount: '260', currency: 'UPI', order_id: 'php-held-2' }]);
  await payd.pay(other.intent_id, '259.50');
  const second = (await ok('getIntent', [other.intent_id])).payments.find((x: any) => x.status === 'held');
  await ok('markRefunded', [other.intent_id, second.transaction_hash]);
  assert.equal((await ok('getIntent', [other.intent_id])).payments[0].status, 'refunded');

  assert.equal((await ok('setWebhookEndpoint', ['https://shop.example.com/payd'])).url, 'https://shop.example.com/payd');
  assert.equal((await ok('getWebhookEndpoint')).url, 'https://shop.example.com/payd');
  assert.equal((await failure('setWebhookEndpoint', ['ftp://shop.example.com/x'])).code, 'INVALID_REQUEST');
  assert.equal((await ok('setWebhookEndpoint', [payd.receiver.url])).url, payd.receiver.url);

  const all = await php('events', [{ limit: 1 }]);
  assert.ok(all.ok.length >= 4 && all.sent.length >= all.ok.length, `a page per event: ${all.sent.length} calls for ${all.ok.length} events`);
  const types = all.ok.filter((e: any) => [short.intent_id, other.intent_id].includes(e.data.intent_id)).map((e: any) => e.type);
  assert.deepEqual(types, ['payment.held', 'payment.success', 'payment.held', 'payment.refunded']);
  const half = Math.floor(all.ok.length / 2);
  const rest = await ok('events', [{ after: all.ok[half - 1].id, limit: 3 }]);
  assert.deepEqual(rest.map((e: any) => e.id), all.ok.slice(half).map((e: any) => e.id));
});

test('PHP: Webhook::verify accepts payd’s real deliveries, refuses tampered, forged, stale and unknown-secret ones, and holds two secrets through a rotation', async () => {
  const intent = await ok('createIntent', [{ amount: '42', currency: 'UPI', order_id: 'php-hook-1' }]);
  assert.equal((await payd.pay(intent.intent_id)).code, 0);
  const hook = await delivery('payment.success', intent.intent_id);
  const verified = await ok('Webhook::verify', [hook.body, hook.headers, payd.webhookSecret]);
  assert.deepEqual([verified.type, verified.id, verified.data.intent_id, verified.data.status], ['payment.success', hook.headers['webhook-id'], intent.intent_id, 'settled']);
  // As PHP's own $_SERVER names them.
  const server = Object.fromEntries(Object.entries(hook.headers).map(([k, v]) => [`HTTP_${k.toUpperCase().replaceAll('-', '_')}`, v]));
  assert.equal((await ok('Webhook::verify', [hook.body, server, [payd.webhookSecret]])).id, verified.id);

  const refused = async (body: string, headers: object, secrets: unknown, ...rest: unknown[]) =>
    assert.equal((await failure('Webhook::verify', [body, headers, secrets, ...rest])).class, 'Payd\\Exception\\WebhookVerificationException');
  await refused(hook.body.replace('"settled"', '"pending"'), hook.headers, payd.webhookSecret);
  await refused(hook.body, { ...hook.headers, 'webhook-id': 'evt_other' }, payd.webhookSecret);
  const signature = String(hook.headers['webhook-signature']);
  await refused(hook.body, { ...hook.headers, 'webhook-signature': signature.slice(0, 3) + (signature[3] === 'A' ? 'B' : 'A') + signature.slice(4) }, payd.webhookSecret);
  await refused(hook.body, hook.headers, `whsec_${Buffer.alloc(24, 7).toString('base64')}`);
  const sentAt = Number(hook.headers['webhook-timestamp']);
  await refused(hook.body, hook.headers, payd.webhookSecret, 300, sentAt + 360);
  assert.equal((await ok('Webhook::verify', [hook.body, hook.headers, payd.webhookSecret, 300, sentAt + 240])).id, verified.id);

  // Rotation: a verifier with both secrets takes the delivery signed before and the one after.
  const rotated = await ok('rotateWebhookSecret');
  const next = await ok('createIntent', [{ amount: '43', currency: 'UPI', order_id: 'php-hook-2' }]);
  assert.equal((await payd.pay(next.intent_id)).code, 0);
  const newHook = await delivery('payment.success', next.intent_id);
  const both = [payd.webhookSecret, rotated.webhook_secret];
  assert.equal((await ok('Webhook::verify', [hook.body, hook.headers, both])).data.intent_id, intent.intent_id);
  assert.equal((await ok('Webhook::verify', [newHook.body, newHook.headers, both])).data.intent_id, next.intent_id);
  assert.equal((await ok('Webhook::verify', [newHook.body, newHook.headers, rotated.webhook_secret])).data.intent_id, next.intent_id);
  await refused(hook.body, hook.headers, rotated.webhook_secret);
  payd.webhookSecret = rotated.webhook_secret;
});

test('PHP: an open intent fetched with its options; a payment link created, listed, fetched by slug, deactivated and activated; their errors; a lost link create never resent', async () => {
  const open = await ok('createOpenIntent', [{ amount: '4999', methods: ['UPI', 'USDT_TRC20'], order_id: 'php-open-1' }]);
  assert.deepEqual([open.status, open.currency, open.pay_amount], ['pending', null, null]);
  assert.equal((await ok('createOpenIntent', [{ amount: '4999', methods: ['UPI', 'USDT_TRC20'], order_id: 'php-open-1' }])).intent_id, open.intent_id);
  const fetched = await ok('getIntent', [open.intent_id]);
  assert.deepEqual(fetched.options.map((o: any) => [o.currency, o.group, o.pay_amount]), [['UPI', 'UPI', null], ['USDT_TRC20', 'USDT', null]]);

  const link = await ok('createPaymentLink', [{ title: 'Blue saree', amount: '499', methods: ['UPI'] }]);
  assert.deepEqual([link.title, link.price, link.status], ['Blue saree', { amount: 499, currency: 'INR' }, 'active']);
  const counter = await ok('createPaymentLink', [{ title: 'Counter', customer_amount: { min: '10', max: '5000' } }]);
  assert.deepEqual((await ok('listPaymentLinks')).map((l: any) => l.link_id).slice(0, 2), [counter.link_id, link.link_id]);
  assert.deepEqual((await ok('listPaymentLinks', [{ limit: 1 }])).map((l: any) => l.link_id), [counter.link_id]);
  const slug = new URL(link.url).pathname.split('/').at(-1)!;
  assert.equal((await ok('getPaymentLink', [slug])).link_id, link.link_id);
  assert.equal((await ok('deactivatePaymentLink', [link.link_id])).status, 'inactive');
  assert.equal((await ok('getPaymentLink', [link.link_id])).status, 'inactive');
  assert.equal((await ok('activatePaymentLink', [slug])).status, 'active');

  // Every method is enabled in the sandbox: a method payd does not know stands for one not enabled.
  const unsupported = await failure('createPaymentLink', [{ title: 'Gold', amount: '10', methods: ['DOGE'] }]);
  assert.deepEqual([unsupported.class, unsupported.status, unsupported.code], ['Payd\\Exception\\ApiException', 400, 'METHOD_UNSUPPORTED']);
  const notYours = await failure('getPaymentLink', [link.link_id], { as: await payd.merchant() });
  assert.deepEqual([notYours.status, notYours.code], [404, 'NOT_FOUND']);

  const before = (await ok('listPaymentLinks', [{ limit: 100 }])).length;
  const lost = await php('createPaymentLink', [{ title: 'Lost answer', amount: '5' }], { options: { lose_answers: 1 } });
  assert.deepEqual([lost.error?.class, lost.sent], ['Payd\\Exception\\NetworkException', ['POST /api/v1/payment-links']]);
  assert.equal((await ok('listPaymentLinks', [{ limit: 100 }])).length, before + 1, 'payd made the one link it was sent');
  const deactivated = await php('deactivatePaymentLink', [link.link_id], { options: { lose_answers: 1 } });
  assert.deepEqual([deactivated.ok?.status, deactivated.sent.length], ['inactive', 2], 'a deactivate is sent again after a lost answer');
});

test('PHP: retries only where safe (a lost create answer retried into the same intent, never a cancel); 429 Retry-After waited out, or thrown past the bound', async () => {
  const created = await php('createIntent', [{ amount: '77', currency: 'UPI', order_id: 'php-retry-1' }], { options: { lose_answers: 1 } });
  assert.deepEqual(created.sent, ['POST /api/v1/intents/create-payment', 'POST /api/v1/intents/create-payment']);
  assert.deepEqual((await ok('listIntents', [{ order_id: 'php-retry-1' }])).map((x: any) => x.intent_id), [created.ok.intent_id]);
  const cancel = await php('cancelIntent', [created.ok.intent_id], { options: { lose_answers: 1 } });
  assert.equal(cancel.error?.class, 'Payd\\Exception\\NetworkException');
  assert.equal(cancel.sent.length, 1);

  // 1 request per 2 s, 2 at once: the third call in a row meets a 429 with Retry-After: 2.
  // Each case runs as another merchant, so each starts with a full bucket of its own.
  const limited = await startSandboxDaemon({ rateLimit: { perSecond: 0.5, burst: 2 } });
  try {
    const impatient = await php('getWebhookEndpoint', [], { daemon: limited, as: await limited.merchant(), times: 3, options: { max_retries: 0 } });
    assert.deepEqual([impatient.error?.class, impatient.error?.status, impatient.error?.code, impatient.done], ['Payd\\Exception\\ApiException', 429, 'RATE_LIMITED', 2]);
    assert.ok(impatient.error!.retryAfter! >= 1, JSON.stringify(impatient.error));

    const bounded = await php('getWebhookEndpoint', [], { daemon: limited, as: await limited.merchant(), times: 3, options: { max_retry_after: 1 } });
    assert.deepEqual([bounded.error?.code, bounded.done, bounded.sent.length], ['RATE_LIMITED', 2, 3], 'a Retry-After past the bound is thrown, not slept through');

    const patient = await php('getWebhookEndpoint', [], { daemon: limited, as: await limited.merchant(), times: 3 });
    assert.equal(patient.error, undefined, JSON.stringify(patient.error));
    assert.deepEqual([patient.done, patient.sent.length], [3, 4], 'the third call met the 429, waited Retry-After and was sent again');
  } finally {
    await limited.close();
  }
});

test('PHP packaging: Composer finds every class by PSR-4, from the package (path repository) and from the repository root (VCS repository), with no dependency beyond curl, json and hash', () => {
  const read = (p: string) => JSON.parse(readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8'));
  const pkg = read('packages/php/composer.json');
  const root = read('composer.json');
  assert.equal(root.name, pkg.name);
  assert.deepEqual(root.require, pkg.require);
  assert.deepEqual(pkg.require, { php: '>=8.1', 'ext-curl': '*', 'ext-hash': '*', 'ext-json': '*' });
  assert.deepEqual(pkg.autoload, { 'psr-4': { 'Payd\\': 'src/' } });
  assert.deepEqual(root.autoload, { 'psr-4': { 'Payd\\': 'packages/php/src/' } });
  const src = fileURLToPath(new URL('../../packages/php/src/', import.meta.url));
  const files = readdirSync(src, { recursive: true }).map(String).filter((f) => f.endsWith('.php'));
  assert.ok(files.length >= 7);
  for (const file of files) {
    const text = readFileSync(join(src, file), 'utf8');
    const namespace = /^namespace ([\w\\]+);$/m.exec(text)?.[1];
    const name = /^(?:final |abstract )?class (\w+)/m.exec(text)?.[1];
    assert.equal(`${namespace}\\${name}`, `Payd\\${file.slice(0, -4).replaceAll('/', '\\')}`, file);
    assert.doesNotMatch(text, /\b(?:Guzzle|Symfony|Psr)\\/, `${file} uses only PHP's own extensions`);
  }
});

test('PHP: the README’s ten lines run as printed against payd', async () => {
  const readme = readFileSync(new URL('../../packages/php/README.md', import.meta.url), 'utf8');
  const block = /## Ten lines\n\n```php\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the README has its ten-line example');
  assert.ok(block.trim().split('\n').filter((l) => l.trim()).length <= 10);
  assert.ok(readFileSync(new URL('../../docs/integrations.md', import.meta.url), 'utf8').includes(block), 'docs/integrations.md shows the same ten lines');
  const autoload = fileURLToPath(new URL('../../packages/php/autoload.php', import.meta.url));
  const code = block.replace("require __DIR__ . '/vendor/autoload.php';", `require ${JSON.stringify(autoload)};`).replace('https://pay.example.com', payd.url).replace(/^<\?php\n/, '');
  const out = await new Promise<string>((resolve, reject) =>
    execFile('php', ['-r', code], { env: { ...process.env, PAYD_CLIENT_ID: payd.clientId, PAYD_CLIENT_SECRET: payd.clientSecret }, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stdout}${stderr}`)) : resolve(stdout),
    ),
  );
  assert.match(out, /^pay 499\.01 at .*\/pay\/[0-9a-f-]{36}$/m);
  const [intent] = (await ok('listIntentsPage', [{ order_id: 'ORD-42' }])).data;
  assert.equal(intent?.status, 'canceled', 'the example made its intent and canceled it');
});

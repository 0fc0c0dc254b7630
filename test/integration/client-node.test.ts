// @payd/client (packages/client) against a real `payd serve --sandbox`: every call a shop makes,
// payd's errors as typed exceptions, the retry rule, and webhooks verified as delivered.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { PaydApiError, PaydClient, PaydNetworkError, verifyWebhook, WebhookVerificationError, type PaydClientOptions, type VerifiedWebhook } from '../../packages/client/src/index.ts';
import { startSandboxDaemon, type SandboxDaemon } from '../helpers/sandbox-daemon.ts';
import { waitFor } from '../helpers/wait.ts';

let payd: SandboxDaemon;
before(async () => {
  payd = await startSandboxDaemon();
});
after(() => payd.close());

const clientFor = (d: SandboxDaemon, o: Partial<PaydClientOptions> = {}) => new PaydClient({ baseUrl: d.url, clientId: d.clientId, clientSecret: d.clientSecret, retryDelayMs: 10, ...o });

/** payd's error, as thrown by `fn`. */
async function apiError(fn: () => Promise<unknown>): Promise<PaydApiError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof PaydApiError, `expected a PaydApiError, got ${err}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

/** The webhook of `type` for `intentId` the receiver got, once it arrives. */
const delivery = (type: string, intentId: string) =>
  waitFor(async () => payd.receiver.received.find((r) => JSON.parse(r.body).type === type && JSON.parse(r.body).data.intent_id === intentId), 15_000, `${type} for ${intentId}`);

test('create (idempotent on order_id) → fetch → cancel; payd’s errors thrown typed, with code, detail, errors[] and status', async () => {
  const client = clientFor(payd);
  const created = await client.createIntent({ amount: 120.5, currency: 'UPI', order_id: 'node-1' });
  assert.equal(created.status, 'pending');
  assert.equal(created.livemode, false);
  assert.match(created.checkout_url, /\/pay\//);
  assert.equal((await client.createIntent({ amount: 120.5, currency: 'UPI', order_id: 'node-1' })).intent_id, created.intent_id, 'a repeated create returns the same intent');

  const fetched = await client.getIntent(created.intent_id);
  assert.equal(fetched.order_id, 'node-1');
  assert.equal(fetched.pay_amount, created.pay_amount);

  const canceled = await client.cancelIntent(created.intent_id);
  assert.equal(canceled.status, 'canceled');
  assert.equal(typeof canceled.canceled_at, 'string');

  const conflict = await apiError(() => client.createIntent({ amount: 99, currency: 'UPI', order_id: 'node-1' }));
  assert.deepEqual([conflict.status, conflict.code], [409, 'ORDER_ID_CONFLICT']);
  assert.match(conflict.detail, /order_id/);

  const invalid = await apiError(() => client.createIntent({ amount: 'ten', currency: 'UPI', order_id: 'node-2' }));
  assert.deepEqual([invalid.status, invalid.code], [400, 'INVALID_REQUEST']);
  assert.ok(invalid.errors.some((e) => e.field === 'amount'), JSON.stringify(invalid.errors));

  const missing = await apiError(() => client.getIntent('00000000-0000-4000-8000-000000000000'));
  assert.deepEqual([missing.status, missing.code], [404, 'INTENT_NOT_FOUND']);

  const settled = await client.createIntent({ amount: 15, currency: 'UPI', order_id: 'node-3' });
  assert.equal((await payd.pay(settled.intent_id)).code, 0);
  const notCancelable = await apiError(() => client.cancelIntent(settled.intent_id));
  assert.deepEqual([notCancelable.status, notCancelable.code], [409, 'INTENT_NOT_CANCELABLE']);

  const wrongSecret = await apiError(() => clientFor(payd, { clientSecret: 'sk_test_wrong' }).getIntent(settled.intent_id));
  assert.deepEqual([wrongSecret.status, wrongSecret.code], [403, 'AUTH_INVALID_SECRET']);
  assert.throws(() => new PaydClient({ baseUrl: payd.url, clientId: payd.clientId, clientSecret: '' }), /clientSecret/);
});

test('listIntents pages through the cursor by itself: every match once, newest first', async () => {
  const requests: string[] = [];
  const client = clientFor(payd, { fetch: (input, init) => (requests.push(String(input)), fetch(input, init)) });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await client.createIntent({ amount: 30 + i, currency: 'USDT_TRC20', order_id: `list-${i}` })).intent_id);
  requests.length = 0;
  const listed: string[] = [];
  for await (const intent of client.listIntents({ currency: 'USDT_TRC20', limit: 2 })) listed.push(intent.intent_id);
  assert.deepEqual(listed, [...ids].reverse());
  assert.equal(requests.length, 3, 'three pages of at most two');
  assert.ok(requests.slice(1).every((u) => new URL(u).searchParams.has('cursor')));

  const page = await client.listIntentsPage({ currency: 'USDT_TRC20', status: 'pending', limit: 100 });
  assert.deepEqual(page.data.map((x) => x.intent_id), [...ids].reverse());
  assert.equal(page.has_more, false);
});

test('events() catches up in order and resumes from the last id handled, missing and repeating nothing', async () => {
  const client = clientFor(payd);
  const a = await client.createIntent({ amount: 2.5, currency: 'SOL', order_id: 'events-1' });
  const b = await client.createIntent({ amount: 3.5, currency: 'SOL', order_id: 'events-2' });
  await client.cancelIntent(a.intent_id);
  assert.equal((await payd.pay(b.intent_id)).code, 0);
  const c = await client.createIntent({ amount: 4.5, currency: 'SOL', order_id: 'events-3' });
  await client.cancelIntent(c.intent_id);

  const all = [];
  for await (const event of client.events({ limit: 1 })) all.push(event);
  const ours = all.filter((e) => [a, b, c].some((x) => x.intent_id === e.data.intent_id)).map((e) => [e.type, e.data.intent_id]);
  assert.deepEqual(ours, [['intent.canceled', a.intent_id], ['payment.success', b.intent_id], ['intent.canceled', c.intent_id]]);

  // A shop that handled the first half stores the last id and resumes from it later.
  const half = Math.floor(all.length / 2);
  const rest = [];
  for await (const event of client.events({ after: all[half - 1]!.id, limit: 2 })) rest.push(event.id);
  assert.deepEqual(rest, all.slice(half).map((e) => e.id));
  const none = [];
  for await (const event of client.events({ after: all.at(-1)!.id })) none.push(event);
  assert.deepEqual(none, []);
  const canceledOnly = [];
  for await (const event of client.events({ type: 'intent.canceled' })) canceledOnly.push(event.type);
  assert.ok(canceledOnly.length >= 2 && canceledOnly.every((t) => t === 'intent.canceled'));
  const badCursor = await apiError(async () => {
    for await (const _ of client.events({ after: 'evt_not-ours' })) void _;
  });
  assert.equal(badCursor.code, 'INVALID_REQUEST');
});

test('held payments: acceptPayment settles the intent with it, markRefunded records a refund', async () => {
  const client = clientFor(payd);
  const short = await client.createIntent({ amount: 250, currency: 'UPI', order_id: 'held-1' });
  assert.notEqual((await payd.pay(short.intent_id, '249.50')).code, 0, 'a short payment settles nothing by itself');
  const held = (await client.getIntent(short.intent_id)).payments.find((x) => x.status === 'held');
  assert.ok(held, 'the short payment is held on its intent');
  const accepted = await client.acceptPayment(short.intent_id, held.transaction_hash);
  assert.equal(accepted.status, 'settled');
  assert.equal((await client.getIntent(short.intent_id)).transaction_hash, held.transaction_hash);

  const other = await client.createIntent({ amount: 260, currency: 'UPI', order_id: 'held-2' });
  await payd.pay(other.intent_id, '259.50');
  const second = (await client.getIntent(other.intent_id)).payments.find((x) => x.status === 'held')!;
  await client.markRefunded(other.intent_id, second.transaction_hash);
  const after = await client.getIntent(other.intent_id);
  assert.equal(after.status, 'pending');
  assert.equal(after.payments.find((x) => x.transaction_hash === second.transaction_hash)?.status, 'refunded');
  const notHeld = await apiError(() => client.acceptPayment(other.intent_id, second.transaction_hash));
  assert.deepEqual([notHeld.status, notHeld.code], [409, 'PAYMENT_NOT_ACCEPTABLE']);
});

test('verifyWebhook accepts payd’s real deliveries and refuses a tampered body, a forged signature, a stale timestamp and the wrong secret', async () => {
  const client = clientFor(payd);
  const intent = await client.createIntent({ amount: 42, currency: 'UPI', order_id: 'hook-1' });
  assert.equal((await payd.pay(intent.intent_id)).code, 0);
  const hook = await delivery('payment.success', intent.intent_id);

  const verified = await verifyWebhook(hook.body, hook.headers, payd.webhookSecret);
  assert.ok(verified.type === 'payment.success', verified.type);
  assert.equal(verified.id, hook.headers['webhook-id']);
  assert.equal(verified.data.intent_id, intent.intent_id);
  assert.equal(verified.data.status, 'settled');
  // The same from a Fetch Headers and from bytes (Next.js, h3, Deno, Bun hand over these).
  const fetchHeaders = new Headers(Object.entries(hook.headers).map(([k, v]): [string, string] => [k, String(v)]));
  assert.equal((await verifyWebhook(new TextEncoder().encode(hook.body), fetchHeaders, [payd.webhookSecret])).id, verified.id);

  const refused = async (body: string, headers: Record<string, unknown>, secrets: string | string[], o = {}) =>
    assert.rejects(verifyWebhook(body, headers as Record<string, string>, secrets, o), WebhookVerificationError);
  await refused(hook.body.replace('"settled"', '"pending"'), hook.headers, payd.webhookSecret);
  await refused(hook.body.replace(/}$/, ' }'), hook.headers, payd.webhookSecret);
  const signature = String(hook.headers['webhook-signature']);
  const flipped = signature.slice(0, 3) + (signature[3] === 'A' ? 'B' : 'A') + signature.slice(4);
  await refused(hook.body, { ...hook.headers, 'webhook-signature': flipped }, payd.webhookSecret);
  await refused(hook.body, { ...hook.headers, 'webhook-id': 'evt_other' }, payd.webhookSecret);
  await refused(hook.body, { ...hook.headers, 'webhook-signature': undefined }, payd.webhookSecret);
  await refused(hook.body, hook.headers, `whsec_${Buffer.alloc(24, 7).toString('base64')}`);
  // Replayed 6 minutes later: refused though the signature is good.
  const sentAt = Number(hook.headers['webhook-timestamp']) * 1000;
  await refused(hook.body, hook.headers, payd.webhookSecret, { now: () => sentAt + 6 * 60_000 });
  assert.equal((await verifyWebhook(hook.body, hook.headers, payd.webhookSecret, { now: () => sentAt + 4 * 60_000 })).id, verified.id);
});

test('secret rotation: a verifier holding both secrets accepts deliveries from before and after it; the new secret alone only those signed after', async () => {
  const client = clientFor(payd);
  const before = await client.createIntent({ amount: 43, currency: 'UPI', order_id: 'rotate-1' });
  assert.equal((await payd.pay(before.intent_id)).code, 0);
  const oldHook = await delivery('payment.success', before.intent_id);

  const rotated = await client.rotateWebhookSecret();
  assert.match(rotated.webhook_secret, /^whsec_/);
  assert.notEqual(rotated.webhook_secret, payd.webhookSecret);
  const afterRotation = await client.createIntent({ amount: 44, currency: 'UPI', order_id: 'rotate-2' });
  assert.equal((await payd.pay(afterRotation.intent_id)).code, 0);
  const newHook = await delivery('payment.success', afterRotation.intent_id);
  assert.equal(String(newHook.headers['webhook-signature']).split(' ').length, 2, 'both secrets sign during the grace period');

  const both = [payd.webhookSecret, rotated.webhook_secret];
  const intentOf = async (p: Promise<VerifiedWebhook>) => {
    const hook = await p;
    return hook.type === 'webhook.test' ? undefined : hook.data.intent_id;
  };
  assert.equal(await intentOf(verifyWebhook(oldHook.body, oldHook.headers, both)), before.intent_id);
  assert.equal(await intentOf(verifyWebhook(newHook.body, newHook.headers, both)), afterRotation.intent_id);
  assert.equal(await intentOf(verifyWebhook(newHook.body, newHook.headers, rotated.webhook_secret)), afterRotation.intent_id);
  await assert.rejects(verifyWebhook(oldHook.body, oldHook.headers, rotated.webhook_secret), WebhookVerificationError);
  payd.webhookSecret = rotated.webhook_secret;
});

test('the webhook endpoint: read, set, removed', async () => {
  const client = clientFor(payd);
  const current = await client.getWebhookEndpoint();
  assert.equal(current.url, payd.receiver.url);
  assert.equal((await client.setWebhookEndpoint('https://shop.example.com/payd')).url, 'https://shop.example.com/payd');
  assert.equal((await client.setWebhookEndpoint(null)).url, null);
  const refused = await apiError(() => client.setWebhookEndpoint('ftp://shop.example.com/x'));
  assert.equal(refused.code, 'INVALID_REQUEST');
  assert.equal((await client.setWebhookEndpoint(payd.receiver.url)).url, payd.receiver.url);
});

test('open intents and payment links: an open intent fetched with its options; a link created, listed, fetched by slug, deactivated and activated; their errors typed', async () => {
  const client = clientFor(payd);
  const open = await client.createOpenIntent({ amount: 4999, methods: ['UPI', 'USDT_TRC20'], order_id: 'node-open-1' });
  assert.deepEqual([open.status, open.currency, open.pay_amount], ['pending', null, null]);
  assert.deepEqual(open.price, { amount: 4999, currency: 'INR' });
  assert.equal((await client.createOpenIntent({ amount: 4999, methods: ['UPI', 'USDT_TRC20'], order_id: 'node-open-1' })).intent_id, open.intent_id, 'idempotent on order_id');
  const fetched = await client.getIntent(open.intent_id);
  assert.deepEqual(fetched.options?.map((o) => [o.currency, o.group, o.pay_amount]), [['UPI', 'UPI', null], ['USDT_TRC20', 'USDT', null]]);
  const both = await apiError(() => client.createOpenIntent({ amount: 10, methods: ['UPI'], currency: 'UPI', order_id: 'node-open-2' } as never));
  assert.deepEqual([both.status, both.code], [400, 'INVALID_REQUEST']);

  const link = await client.createPaymentLink({ title: 'Blue saree', amount: 499, methods: ['UPI'] });
  assert.deepEqual([link.title, link.price, link.status, link.payments], ['Blue saree', { amount: 499, currency: 'INR' }, 'active', 0]);
  const counter = await client.createPaymentLink({ title: 'Counter', customer_amount: { min: 10, max: 5000 } });
  assert.deepEqual((await client.listPaymentLinks()).map((l) => l.link_id).slice(0, 2), [counter.link_id, link.link_id], 'newest first');
  assert.deepEqual((await client.listPaymentLinks({ limit: 1 })).map((l) => l.link_id), [counter.link_id]);
  const slug = new URL(link.url).pathname.split('/').at(-1)!;
  assert.equal((await client.getPaymentLink(slug)).link_id, link.link_id, 'fetched by its slug');
  assert.equal((await client.deactivatePaymentLink(link.link_id)).status, 'inactive');
  assert.equal((await client.getPaymentLink(link.link_id)).status, 'inactive');
  assert.equal((await client.activatePaymentLink(slug)).status, 'active');

  // Every method is enabled in the sandbox: a method payd does not know stands for one not enabled.
  const unsupported = await apiError(() => client.createPaymentLink({ title: 'Gold', amount: 10, methods: ['DOGE' as 'UPI'] }));
  assert.deepEqual([unsupported.status, unsupported.code], [400, 'METHOD_UNSUPPORTED']);
  const twoPrices = await apiError(() => client.createPaymentLink({ title: 'Gold', amount: 10, customer_amount: { min: 1, max: 2 } }));
  assert.deepEqual([twoPrices.status, twoPrices.code], [400, 'INVALID_REQUEST']);
  assert.ok(twoPrices.errors.some((e) => e.field === 'amount'), JSON.stringify(twoPrices.errors));
  const other = await payd.merchant();
  const notYours = await apiError(() => clientFor(payd, other).getPaymentLink(link.link_id));
  assert.deepEqual([notYours.status, notYours.code], [404, 'NOT_FOUND']);
});

/**
 * A client whose fetch loses the answer of the next request after payd has handled it (a
 * connection dropped on the way back); `sent` lists what went out, `loseNext` arms it again.
 */
function lossyClient() {
  let lose = 1;
  const sent: string[] = [];
  const lossy: typeof fetch = async (input, init) => {
    sent.push(`${init?.method} ${new URL(String(input)).pathname}`);
    const res = await fetch(input, init);
    if (lose-- > 0) throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    return res;
  };
  return { sent, loseNext: () => void (lose = 1), client: clientFor(payd, { fetch: lossy }) };
}

test('payment links retry only where safe: a create whose answer was lost is not sent again; a deactivate is', async () => {
  const { sent, loseNext, client } = lossyClient();
  const before = (await clientFor(payd).listPaymentLinks({ limit: 100 })).length;
  await assert.rejects(client.createPaymentLink({ title: 'Lost answer', amount: 5 }), PaydNetworkError);
  assert.deepEqual(sent, ['POST /api/v1/payment-links']);
  const links = await clientFor(payd).listPaymentLinks({ limit: 100 });
  assert.equal(links.length, before + 1, 'payd made the one link it was sent');

  loseNext();
  sent.length = 0;
  assert.equal((await client.deactivatePaymentLink(links[0]!.link_id)).status, 'inactive');
  assert.equal(sent.length, 2, 'sent again after the lost answer');
});

test('retries only where safe: a lost create answer is retried into the same intent; a GET after a 502; never a cancel', async () => {
  // A create whose request reached payd but whose answer was lost on the way back.
  const { sent, loseNext, client } = lossyClient();
  const created = await client.createIntent({ amount: 77, currency: 'UPI', order_id: 'retry-1' });
  assert.deepEqual(sent, ['POST /api/v1/intents/create-payment', 'POST /api/v1/intents/create-payment']);
  const all = [];
  for await (const x of clientFor(payd).listIntents({ order_id: 'retry-1' })) all.push(x.intent_id);
  assert.deepEqual(all, [created.intent_id], 'payd made one intent of the two sends');

  // A proxy's 502 page on a read: retried.
  let fail = 1;
  const proxied: typeof fetch = async (input, init) => (fail-- > 0 ? new Response('<html>Bad Gateway</html>', { status: 502 }) : fetch(input, init));
  assert.equal((await clientFor(payd, { fetch: proxied }).getIntent(created.intent_id)).intent_id, created.intent_id);

  // A cancel is never sent twice: its failure reaches the caller, who can fetch and decide.
  loseNext();
  sent.length = 0;
  await assert.rejects(client.cancelIntent(created.intent_id), (err: unknown) => err instanceof PaydNetworkError && /socket hang up/.test(err.message));
  assert.deepEqual(sent, [`POST /api/v1/intents/${created.intent_id}/cancel`]);
  fail = 1;
  const gateway = await apiError(() => clientFor(payd, { fetch: proxied }).cancelIntent(created.intent_id));
  assert.deepEqual([gateway.status, gateway.code], [502, 'HTTP_502']);

  // Nothing listening: a network error, after the retries a read is allowed.
  let attempts = 0;
  const closed = clientFor(payd, { baseUrl: 'http://127.0.0.1:1', fetch: (i, n) => (attempts++, fetch(i, n)) });
  await assert.rejects(closed.getIntent(created.intent_id), PaydNetworkError);
  assert.equal(attempts, 3);
});

test('429: Retry-After waited out within the bound, thrown beyond it, typed with retryAfter', async (t) => {
  const limited = await startSandboxDaemon({ rateLimit: { perSecond: 1, burst: 2 } });
  t.after(() => limited.close());
  const seen: Array<{ status: number; at: number }> = [];
  const watching: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    seen.push({ status: res.status, at: Date.now() });
    return res;
  };

  // Without retries the caller sees payd's 429, with the wait it asked for.
  const impatient = clientFor(limited, { maxRetries: 0 });
  const results = await Promise.allSettled([impatient.getWebhookEndpoint(), impatient.getWebhookEndpoint(), impatient.getWebhookEndpoint()]);
  const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
  assert.ok(refused.length >= 1, 'the third call within a second is over the limit');
  assert.ok(refused[0] instanceof PaydApiError);
  assert.deepEqual([refused[0].status, refused[0].code], [429, 'RATE_LIMITED']);
  assert.ok(refused[0].retryAfter! >= 1);

  // By default the client waits as told and the calls succeed.
  const patient = clientFor(limited, { fetch: watching });
  for (let i = 0; i < 4; i++) assert.equal((await patient.getWebhookEndpoint()).url, limited.receiver.url);
  const first429 = seen.findIndex((s) => s.status === 429);
  assert.ok(first429 >= 0, `a 429 was met and waited out: ${JSON.stringify(seen)}`);
  assert.equal(seen[first429 + 1]?.status, 200);
  assert.ok(seen[first429 + 1]!.at - seen[first429]!.at >= 900, 'the retry waited Retry-After (1 s)');

  // A Retry-After longer than the caller allows is thrown at once, not slept through.
  seen.length = 0;
  const bounded = clientFor(limited, { fetch: watching, maxRetryAfterSeconds: 0 });
  const results2 = await Promise.allSettled([1, 2, 3, 4].map(() => bounded.getWebhookEndpoint()));
  const thrown = results2.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
  assert.ok(thrown && thrown.reason instanceof PaydApiError && thrown.reason.code === 'RATE_LIMITED');
  assert.equal(seen.length, 4, 'no call was sent again');
});

test('the README’s ten lines run as printed against payd', async (t) => {
  const readme = readFileSync(new URL('../../packages/client/README.md', import.meta.url), 'utf8');
  const block = /## Ten lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the README has its ten-line example');
  assert.ok(block.trim().split('\n').filter((l) => l.trim()).length <= 10);
  assert.ok(readFileSync(new URL('../../docs/integrations.md', import.meta.url), 'utf8').includes(block), 'docs/integrations.md shows the same ten lines');
  const dir = mkdtempSync(join(tmpdir(), 'payd-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'shop.mts');
  const src = fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url));
  writeFileSync(file, block.replace("'@payd/client'", JSON.stringify(src)).replace('https://pay.example.com', payd.url));
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, PAYD_CLIENT_ID: payd.clientId, PAYD_CLIENT_SECRET: payd.clientSecret }, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  assert.match(out, /^pay 499\.01 at .*\/pay\/[0-9a-f-]{36}$/m);
  const made = await apiError(() => clientFor(payd).createIntent({ amount: 1, currency: 'UPI', order_id: 'ORD-42' }));
  assert.equal(made.code, 'ORDER_ID_CONFLICT', 'the example made its intent');
  const [intent] = (await clientFor(payd).listIntentsPage({ order_id: 'ORD-42' })).data;
  assert.equal(intent?.status, 'canceled', 'and canceled it');
});

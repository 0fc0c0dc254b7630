// The Medusa v2 payment provider (packages/medusa) under Medusa's own module test runner
// (@medusajs/test-utils moduleIntegrationTestRunner: the Payment Module with the provider
// registered, its tables on a real PostgreSQL), against a real `payd serve --sandbox`: a payment
// session in INR creates an intent, the sandbox pays it, payd's real signed webhook goes to the
// provider's webhook handler and the session is captured; with `methods` the session is an open
// intent whose method the customer picks on payd's checkout; the cart's total goes to payd as exact
// decimal text; a tampered webhook captures nothing; a deleted session cancels its intent. Medusa's packages are the provider package's own
// (npm ci --prefix packages/medusa, as .ci/run does), so the daemon's install stays light.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PaydClient } from '../../packages/client/src/index.ts';
import { createDatabase, startPostgres } from '../helpers/postgres.ts';
import { webhookHeaders } from '../../src/webhooks/sign.ts';
import { startSandboxDaemon } from '../helpers/sandbox-daemon.ts';
import { waitFor } from '../helpers/wait.ts';

const PACKAGE_DIR = fileURLToPath(new URL('../../packages/medusa/', import.meta.url));
// The provider's dependencies: Medusa's packages, and @payd/client (packages/client, installed as a built copy).
const needed = ['node_modules/@medusajs/test-utils/package.json', 'node_modules/@payd/client/dist/cjs/index.js'];
if (!needed.every((file) => existsSync(join(PACKAGE_DIR, file)))) {
  throw new Error(
    "The Medusa provider's test needs the package's own dependencies (Medusa's framework, Payment Module and test runner; @payd/client built), not installed here: run `npm ci --prefix packages/medusa` (as .ci/run does), then run this test again",
  );
}
// Medusa is loaded from the provider package's node_modules, the way a shop's Medusa app loads it.
const requireMedusa = createRequire(join(PACKAGE_DIR, 'package.json'));
const { moduleIntegrationTestRunner } = requireMedusa('@medusajs/test-utils');
const { BigNumber, Modules } = requireMedusa('@medusajs/framework/utils');
const PAYMENT_MODULE_DIR = dirname(requireMedusa.resolve('@medusajs/payment/package.json'));
const PROVIDER = join(PACKAGE_DIR, 'src/index.ts');
const { PaydPaymentProviderService } = requireMedusa(join(PACKAGE_DIR, 'src/service.ts'));


// Medusa's runner is written for Jest's globals; node:test has the same hooks under these names.
Object.assign(globalThis, { describe, it, beforeAll: before, afterAll: after, beforeEach, afterEach });

// A throwaway PostgreSQL for the Payment Module's tables; the runner reads where it is from DB_*.
const postgres = await startPostgres();
await createDatabase(postgres.url, 'medusa_payment');
Object.assign(process.env, { DB_HOST: '127.0.0.1', DB_PORT: String(postgres.port), DB_USERNAME: 'payd', DB_PASSWORD: '' });

// Medusa's webhook route for this provider is /hooks/payment/payd_payd (identifier "payd", id
// "payd"): the stand-in below answers there (the merchant has one webhook URL: the second provider,
// "payd_open", shares its credentials and secret, so this route verifies its sessions' webhooks too) and does what Medusa's payment-webhook subscriber and
// its process-payment workflow do with the provider's answer (authorize the session; a "captured"
// session is captured at once by the Payment Module).
interface Delivery {
  raw: Buffer;
  headers: IncomingHttpHeaders;
}
const deliveries: Delivery[] = [];
const handled: Array<{ action?: string; session_id?: string; error?: string }> = [];
let paymentModule: any;
const hooks = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const raw = Buffer.concat(chunks);
    if (req.url !== '/hooks/payment/payd_payd') {
      res.writeHead(404).end();
      return;
    }
    deliveries.push({ raw, headers: req.headers });
    res.writeHead(200).end();
    handled.push(await handleWebhook({ raw, headers: req.headers }));
  });
});
hooks.listen(0, '127.0.0.1');
await once(hooks, 'listening');
const hooksUrl = `http://127.0.0.1:${(hooks.address() as { port: number }).port}/hooks/payment/payd_payd`;

async function handleWebhook(d: Delivery): Promise<{ action?: string; session_id?: string; error?: string }> {
  try {
    const result = await paymentModule.getWebhookActionAndData({ provider: 'payd_payd', payload: { data: JSON.parse(d.raw.toString('utf8')), rawData: d.raw, headers: d.headers } });
    if (result.action === 'captured' || result.action === 'authorized') await paymentModule.authorizePaymentSession(result.data.session_id, {});
    return { action: result.action, session_id: result.data?.session_id };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

// A real sandbox daemon; its merchant's webhooks go to the route above, as the shop sets them.
const sandbox = await startSandboxDaemon();
const shop = new PaydClient({ baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
await shop.setWebhookEndpoint(hooksUrl);
const options = { baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, webhookSecret: sandbox.webhookSecret };
// The same shop offering a choice: each session an open intent, the customer picks UPI or USDT on payd's checkout.
const openOptions = { ...options, methods: ['UPI', 'USDT_TRC20'] };

after(async () => {
  await sandbox.close();
  hooks.close();
  await postgres.stop();
});

const fetchIntent = (intentId: string): Promise<any> => shop.getIntent(intentId);
const sandboxPay = (intentId: string) => sandbox.pay(intentId);
// Delivery is within a second of settlement; a loaded machine gets a generous bound.
const handledFor = (sessionId: string, what: string) => waitFor(async () => handled.find((h) => h.session_id === sessionId), 30_000, what);

describe('Medusa payment provider on a real payd (Payment Module, PostgreSQL)', () => moduleIntegrationTestRunner({
  moduleName: Modules.PAYMENT,
  resolve: PAYMENT_MODULE_DIR,
  dbName: 'medusa_payment',
  moduleOptions: {
    providers: [
      { resolve: PROVIDER, id: 'payd', options },
      { resolve: PROVIDER, id: 'payd_open', options: openOptions },
    ],
  },
  testSuite: ({ service }: { service: any }) => {
    beforeEach(() => {
      paymentModule = service;
    });

    const newSession = async (amount: number, provider = 'pp_payd_payd') => {
      const collection = await service.createPaymentCollections({ currency_code: 'inr', amount });
      const session = await service.createPaymentSession(collection.id, { provider_id: provider, currency_code: 'inr', amount, data: {} });
      return { collection, session };
    };

    it('lists payd as a payment provider', async () => {
      const providers = await service.listPaymentProviders();
      // Medusa registers its own manual provider beside it.
      assert.deepEqual(providers.map((p: any) => p.id).sort(), ['pp_payd_payd', 'pp_payd_payd_open', 'pp_system_default']);
    });

    it("with methods, a session is an open intent for the cart's total: the customer picks USDT on payd's checkout, the sandbox pays, the webhook captures", async () => {
      const { collection, session } = await newSession(1234.57, 'pp_payd_payd_open');
      const intent = await fetchIntent(session.data.intent_id);
      assert.deepEqual([intent.order_id, intent.currency, intent.amount, intent.price], [session.id, null, null, { amount: 1234.57, currency: 'INR' }]);
      assert.deepEqual(intent.options.map((o: any) => [o.currency, o.pay_amount]), [['UPI', null], ['USDT_TRC20', null]]);
      assert.deepEqual([session.data.currency, session.data.pay_amount, session.data.checkout_url], [null, null, intent.checkout_url]);

      // The customer's choice, as payd's checkout page posts it (to this daemon's loopback address:
      // checkout_url is built on its configured public URL).
      const chose = await fetch(`${sandbox.url}/pay/${intent.intent_id}/choose`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ currency: 'USDT_TRC20' }), redirect: 'manual' });
      assert.equal(chose.status, 303, await chose.text());
      const chosen = await fetchIntent(intent.intent_id);
      assert.equal(chosen.currency, 'USDT_TRC20');
      // The session's data follows the choice: the storefront can show what to pay in which method.
      const provider = new PaydPaymentProviderService({}, openOptions);
      const read = await provider.retrievePayment({ data: session.data });
      assert.deepEqual([read.data.currency, read.data.pay_amount, read.data.intent_status], ['USDT_TRC20', String(chosen.pay_amount), 'pending']);

      const paid = await sandboxPay(intent.intent_id);
      assert.equal(paid.code, 0, paid.err);
      assert.deepEqual(await handledFor(session.id, "the open intent's payment.success outcome"), { action: 'captured', session_id: session.id });
      const payments = await service.listPayments({ payment_session_id: session.id });
      assert.deepEqual(payments.map((p: any) => [Number(p.amount), Boolean(p.captured_at)]), [[1234.57, true]]);
      assert.equal((await service.retrievePaymentCollection(collection.id)).status, 'completed');
    });

    it("the cart's total reaches payd as exact decimal text, past what a float carries; more decimals than the currency has are refused saying so", async () => {
      // 90071992547409.93 as a float is 90071992547409.94: a quoted method's intent is priced to the cent given.
      const quoted = new PaydPaymentProviderService({}, { ...options, method: 'USDT_TRC20' });
      const big = await quoted.initiatePayment({ amount: new BigNumber('90071992547409.93'), currency_code: 'usd', data: { session_id: 'payses_float1' } });
      const intent = await fetchIntent(big.id);
      assert.deepEqual([intent.currency, intent.amount_exact, big.data.amount], ['USDT_TRC20', '90071992547409.93', '90071992547409.93']);
      // payd's payment.success for it, as signed and sent (the intent as the API writes it): the
      // session is captured for the cart's total to the cent, not for the float of price.amount.
      const raw = await (await fetch(`${sandbox.url}/api/v1/intents/${big.id}`, { headers: { 'x-client-id': sandbox.clientId, 'x-client-secret': sandbox.clientSecret } })).text();
      assert.match(raw, /"price":\{"amount":90071992547409\.93,"amount_exact":"90071992547409\.93","currency":"USD"\}/);
      const event = `{"type":"payment.success","data":${raw}}`;
      const signed = webhookHeaders([sandbox.webhookSecret], 'msg_float1', Math.floor(Date.now() / 1000), event);
      const outcome = await quoted.getWebhookActionAndData({ data: JSON.parse(event), rawData: Buffer.from(event), headers: signed });
      assert.deepEqual(outcome, { action: 'captured', data: { session_id: 'payses_float1', amount: '90071992547409.93' } });
      // A Medusa total with trailing zeros is the same price.
      const open = new PaydPaymentProviderService({}, openOptions);
      const zeros = await open.initiatePayment({ amount: new BigNumber({ value: '1234.5700000000', precision: 20 }), currency_code: 'inr', data: { session_id: 'payses_float2' } });
      assert.deepEqual((await fetchIntent(zeros.id)).price, { amount: 1234.57, currency: 'INR' });
      // A total with a fraction of a paisa is not rounded behind the shop's back.
      await assert.rejects(
        open.initiatePayment({ amount: new BigNumber('1234.5700000000000001'), currency_code: 'inr', data: { session_id: 'payses_float3' } }),
        /payd: 1234\.5700000000000001 INR has more than 2 decimals/,
      );
      assert.throws(() => PaydPaymentProviderService.validateOptions({ ...openOptions, method: 'UPI' }), /give option method \(one method\) or methods \(the customer chooses\), not both/);
      assert.throws(() => PaydPaymentProviderService.validateOptions({ ...options, methods: [] }), /option methods must be "all" or a non-empty list of payd methods/);
    });

    it('an INR session is paid through payd: intent created, sandbox pays, the signed webhook captures the session once; a refund says payd moves no money', async () => {
      const { collection, session } = await newSession(1499.5);
      const intent = await fetchIntent(session.data.intent_id);
      assert.equal(intent.order_id, session.id, 'the session id is the order id');
      assert.equal(intent.amount, 1499.5);
      assert.equal(intent.currency, 'UPI');
      assert.equal(intent.status, 'pending');
      assert.equal(session.data.checkout_url, intent.checkout_url);
      assert.equal(session.data.pay_amount, String(intent.pay_amount));

      // Creating again for the same session (a retried request) is the same intent.
      const provider = new PaydPaymentProviderService({}, options);
      const again = await provider.initiatePayment({ amount: 1499.5, currency_code: 'inr', data: { session_id: session.id } });
      assert.equal(again.id, intent.intent_id);

      // Before the money arrives the session cannot be authorized.
      await assert.rejects(service.authorizePaymentSession(session.id, {}), /was not authorized/);

      const paid = await sandboxPay(intent.intent_id);
      assert.equal(paid.code, 0, paid.err);
      const outcome = await handledFor(session.id, "the payment.success webhook's outcome");
      assert.deepEqual(outcome, { action: 'captured', session_id: session.id });

      const payments = await service.listPayments({ payment_session_id: session.id });
      assert.equal(payments.length, 1);
      assert.equal(Number(payments[0].amount), 1499.5);
      assert.ok(payments[0].captured_at, 'captured');
      const updated = await service.retrievePaymentCollection(collection.id);
      assert.equal(updated.status, 'completed');

      // payd delivers at least once: the same delivery again captures nothing more.
      const delivery = deliveries.find((d) => JSON.parse(d.raw.toString('utf8')).data.order_id === session.id)!;
      assert.deepEqual(await handleWebhook(delivery), { action: 'captured', session_id: session.id });
      assert.equal((await service.listPayments({ payment_session_id: session.id })).length, 1);

      await assert.rejects(service.refundPayment({ payment_id: payments[0].id, amount: 100 }), /payd moves no money and cannot send 100 INR back: return it to the customer yourself/);
      // A paid intent cannot be canceled, and the provider says why.
      await assert.rejects(provider.cancelPayment({ data: session.data }), /intent \S+ is paid \(settled\) and cannot be canceled; payd moves no money/);
    });

    it('a tampered or forged webhook is refused and captures nothing', async () => {
      const { session: paidSession } = await newSession(250);
      const { session: other } = await newSession(999);
      const paid = await sandboxPay(paidSession.data.intent_id);
      assert.equal(paid.code, 0, paid.err);
      await handledFor(paidSession.id, 'the genuine webhook');
      const genuine = deliveries.find((d) => JSON.parse(d.raw.toString('utf8')).data.order_id === paidSession.id)!;

      // The genuine delivery's body made to name the other (unpaid) session.
      const tampered = Buffer.from(genuine.raw.toString('utf8').replaceAll(paidSession.id, other.id));
      assert.match((await handleWebhook({ raw: tampered, headers: genuine.headers })).error ?? '', /payd webhook refused: no webhook-signature matches the body with these secrets/);
      // Signed with a secret that is not the merchant's.
      const { createHmac } = await import('node:crypto');
      const id = 'evt_forged';
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = createHmac('sha256', Buffer.from('Zm9yZ2VkIGtleSBmb3JnZWQga2V5IGZvcmdlZCBrZXk=', 'base64')).update(`${id}.${ts}.${tampered.toString('utf8')}`).digest('base64');
      const forged = await handleWebhook({ raw: tampered, headers: { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` } });
      assert.match(forged.error ?? '', /payd webhook refused: no webhook-signature matches the body with these secrets/);
      // The genuine delivery replayed after the tolerance (its timestamp 10 minutes old).
      const old = { ...genuine.headers, 'webhook-timestamp': String(Number(genuine.headers['webhook-timestamp']) - 600) };
      assert.match((await handleWebhook({ raw: genuine.raw, headers: old })).error ?? '', /payd webhook refused: webhook-timestamp is outside the tolerance/);

      assert.equal((await service.listPayments({ payment_session_id: other.id })).length, 0, 'nothing captured for the other session');
      const otherSession = await service.retrievePaymentSession(other.id);
      assert.equal(otherSession.status, 'pending');
    });

    it('a deleted session cancels its intent; money paid to it afterwards is held, reported as requires_more, and marked refunded once the shop returned it', async () => {
      const { session } = await newSession(300);
      await service.deletePaymentSession(session.id);
      const intent = await fetchIntent(session.data.intent_id);
      assert.equal(intent.status, 'canceled');

      const late = await sandboxPay(intent.intent_id);
      assert.equal(late.code, 1, 'nothing settled');
      const outcome = await handledFor(session.id, "the payment.held webhook's outcome");
      assert.deepEqual(outcome, { action: 'requires_more', session_id: session.id });

      // The shop returned that money itself and records the refund: payd marks the held payment refunded.
      const [held] = (await fetchIntent(intent.intent_id)).payments;
      assert.equal(held.status, 'held');
      const recorder = new PaydPaymentProviderService({}, { ...options, refunds: 'recordReturned' });
      const refund = await recorder.refundPayment({ amount: held.amount, data: session.data });
      assert.deepEqual(refund.data.refunds, [{ amount: String(held.amount), returned_by: 'merchant', payd_refunded: [held.transaction_hash] }]);
      const after = await fetchIntent(intent.intent_id);
      assert.deepEqual(after.payments.map((p: any) => p.status), ['refunded']);
    });

    it("a new cart total is a new intent, the old one canceled; cancel cancels the intent; the provider's options are checked at start", async () => {
      const { session } = await newSession(500);
      const updated = await service.updatePaymentSession({ id: session.id, amount: 650.25, currency_code: 'inr', data: session.data });
      assert.notEqual(updated.data.intent_id, session.data.intent_id);
      assert.equal((await fetchIntent(session.data.intent_id)).status, 'canceled');
      const next = await fetchIntent(updated.data.intent_id);
      assert.equal(next.amount, 650.25);
      assert.equal(next.order_id, `${session.id}.1`);

      // Canceling the payment cancels its intent in payd.
      const provider = new PaydPaymentProviderService({}, options);
      const canceled = await provider.cancelPayment({ data: updated.data });
      assert.equal(canceled.data.intent_status, 'canceled');
      assert.equal((await fetchIntent(updated.data.intent_id)).status, 'canceled');

      assert.throws(() => PaydPaymentProviderService.validateOptions({ ...options, baseUrl: 'ftp://x' }), /option baseUrl must be an http\(s\) URL/);
      assert.throws(() => PaydPaymentProviderService.validateOptions({ ...options, webhookSecret: undefined }), /option webhookSecret \(or webhookSecrets during a rotation\) is required/);
      assert.throws(() => PaydPaymentProviderService.validateOptions({ ...options, clientSecret: 'hunter2' }), /option clientSecret must be a payd client secret/);
    });
  },
}));

// A cart → order checkout through Medusa itself, with payd as its payment provider: Medusa's
// application test runner (@medusajs/test-utils medusaIntegrationTestRunner) boots a minimal
// Medusa app (packages/medusa/test-app: Medusa's commerce modules and this provider) with its HTTP
// server on a real PostgreSQL; a cart in INR gets a payd payment session, a real
// `payd serve --sandbox` is paid, payd's real signed webhook reaches Medusa's own route
// /hooks/payment/payd_payd and Medusa completes the cart into an order with the payment captured.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PaydClient } from '../../packages/client/src/index.ts';
import { createDatabase, startPostgres } from '../helpers/postgres.ts';
import { startSandboxDaemon } from '../helpers/sandbox-daemon.ts';
import { waitFor } from '../helpers/wait.ts';

const PACKAGE_DIR = fileURLToPath(new URL('../../packages/medusa/', import.meta.url));
const APP_DIR = join(PACKAGE_DIR, 'test-app');
// The whole Medusa server (@medusajs/medusa) is a dev dependency of the provider package only.
const needed = ['node_modules/@medusajs/medusa/package.json', 'node_modules/@medusajs/test-utils/package.json', 'node_modules/@payd/client/dist/cjs/index.js'];
if (!needed.every((file) => existsSync(join(PACKAGE_DIR, file)))) {
  throw new Error("The Medusa checkout test needs the provider package's own dependencies (Medusa's server and test runner; @payd/client built), not installed here: run `npm ci --prefix packages/medusa` (as .ci/run does), then run this test again");
}

// A throwaway PostgreSQL; Medusa's runner reads where it is from DB_* when it loads, and builds
// its connection without TLS only for a host named localhost.
const postgres = await startPostgres();
Object.assign(process.env, { DB_HOST: 'localhost', DB_PORT: String(postgres.port), DB_USERNAME: 'payd', DB_PASSWORD: '' });
await createDatabase(postgres.url, 'medusa_shop');

// Medusa resolves its modules and providers from the working directory, as when `medusa start`
// runs in a shop's app: this test process runs in the app's directory.
process.chdir(APP_DIR);
const requireMedusa = createRequire(join(PACKAGE_DIR, 'package.json'));
const { medusaIntegrationTestRunner } = requireMedusa('@medusajs/test-utils');
const { ContainerRegistrationKeys } = requireMedusa('@medusajs/framework/utils');
const flows = requireMedusa('@medusajs/medusa/core-flows');

// Medusa's runner is written for Jest's globals; node:test has the same hooks under these names.
Object.assign(globalThis, { describe, it, beforeAll: before, afterAll: after, beforeEach, afterEach });

const sandbox = await startSandboxDaemon();
const shop = new PaydClient({ baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
// The app's medusa-config.js reads the provider's options from these.
Object.assign(process.env, { PAYD_URL: sandbox.url, PAYD_CLIENT_ID: sandbox.clientId, PAYD_CLIENT_SECRET: sandbox.clientSecret, PAYD_WEBHOOK_SECRET: sandbox.webhookSecret });

after(async () => {
  await sandbox.close();
  await postgres.stop();
});

describe('a Medusa shop checks out a cart in INR with payd', () => medusaIntegrationTestRunner({
  cwd: APP_DIR,
  dbName: 'medusa_shop',
  testSuite: ({ api, getContainer, utils }: { api: any; getContainer: () => any; utils: { waitWorkflowExecutions(): Promise<void> } }) => {
    it("payd's real webhook on Medusa's route completes the cart into an order, its payment captured once", async () => {
      const container = getContainer();
      const query = container.resolve(ContainerRegistrationKeys.QUERY);
      // payd's merchant sends its webhooks to this Medusa's route for the provider.
      const medusaPort = new URL(api.defaults.baseURL).port;
      await shop.setWebhookEndpoint(`http://127.0.0.1:${medusaPort}/hooks/payment/payd_payd`);

      const { result: [channel] } = await flows.createSalesChannelsWorkflow(container).run({ input: { salesChannelsData: [{ name: 'Web' }] } });
      const { result: [region] } = await flows.createRegionsWorkflow(container).run({ input: { regions: [{ name: 'India', currency_code: 'inr', countries: ['in'], payment_providers: ['pp_payd_payd'] }] } });
      const { result: cart } = await flows.createCartWorkflow(container).run({
        input: { region_id: region.id, sales_channel_id: channel.id, currency_code: 'inr', email: 'asha@example.in', items: [{ title: 'Blue saree', unit_price: 1499.5, quantity: 1, requires_shipping: false }] },
      });
      const { result: collection } = await flows.createPaymentCollectionForCartWorkflow(container).run({ input: { cart_id: cart.id } });
      const { result: session } = await flows.createPaymentSessionsWorkflow(container).run({ input: { payment_collection_id: collection.id, provider_id: 'pp_payd_payd' } });

      const intent = await shop.getIntent(session.data.intent_id);
      assert.deepEqual([intent.order_id, intent.amount, intent.currency, intent.status], [session.id, 1499.5, 'UPI', 'pending']);

      // Nothing is completed before the money arrives.
      const { data: [waiting] } = await query.graph({ entity: 'cart', fields: ['completed_at'], filters: { id: cart.id } });
      assert.equal(waiting.completed_at, null);

      const paid = await sandbox.pay(intent.intent_id);
      assert.equal(paid.code, 0, paid.err);

      // payd delivers within a second of settling; Medusa processes the webhook after its delay,
      // then completes the cart: the order is placed and its payment recorded as its transaction.
      const placed = await waitFor(async () => {
        const { data } = await query.graph({ entity: 'order_cart', fields: ['order.id', 'order.email', 'order.currency_code', 'order.total', 'order.transactions.amount'], filters: { cart_id: cart.id } });
        const order = data[0]?.order;
        return order?.transactions?.length ? order : undefined;
      }, 60_000, 'the order Medusa completes from the cart, with its payment');
      await utils.waitWorkflowExecutions();
      assert.deepEqual([placed.email, placed.currency_code, Number(placed.total), placed.transactions.map((t: any) => Number(t.amount))], ['asha@example.in', 'inr', 1499.5, [1499.5]]);
      const { data: payments } = await query.graph({ entity: 'payment', fields: ['amount', 'captured_at', 'payment_collection.status'], filters: { payment_session_id: session.id } });
      assert.deepEqual(payments.map((p: any) => [Number(p.amount), Boolean(p.captured_at), p.payment_collection.status]), [[1499.5, true, 'completed']]);
      const { data: [done] } = await query.graph({ entity: 'cart', fields: ['completed_at'], filters: { id: cart.id } });
      assert.ok(done.completed_at, 'the cart is completed');
    });
  },
}));

// @payd/client on Bun and Deno, as a shop there runs it: the package bundled as its ESM build is,
// imported by its name from the shop's node_modules, against a real `payd serve --sandbox`:
// create (idempotent), fetch, list, payd's error as a typed exception, and a webhook payd really
// delivered verified with the runtime's own WebCrypto (a tampered copy refused).
// The runtimes come from packages/client's own install (npm ci --prefix packages/client).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import * as esbuild from 'esbuild';
import { startSandboxDaemon, type SandboxDaemon } from '../helpers/sandbox-daemon.ts';
import { waitFor } from '../helpers/wait.ts';

const pkg = fileURLToPath(new URL('../../packages/client/', import.meta.url));
const runtimeBin = (name: string) => join(pkg, 'node_modules', '.bin', name);

let payd: SandboxDaemon;
let shop: string;
before(async () => {
  for (const name of ['bun', 'deno']) {
    if (!existsSync(runtimeBin(name))) throw new Error(`${name} is not installed for the client tests: run npm ci --prefix packages/client (bash .ci/run does)`);
  }
  payd = await startSandboxDaemon();
  shop = mkdtempSync(join(tmpdir(), 'payd-shop-runtime-'));
  const installed = join(shop, 'node_modules', '@payd', 'client');
  mkdirSync(installed, { recursive: true });
  // The same esbuild options as packages/client/scripts/build.mjs's ESM build.
  await esbuild.build({ absWorkingDir: pkg, entryPoints: ['src/index.ts'], outfile: join(installed, 'index.js'), bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'warning' });
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: '@payd/client', type: 'module', exports: { '.': './index.js' } }));
  writeFileSync(join(shop, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module', dependencies: { '@payd/client': '*' } }));
  writeFileSync(join(shop, 'shop.mjs'), SHOP);
});
after(async () => {
  await payd?.close();
  if (shop) rmSync(shop, { recursive: true, force: true });
});

/** What the shop does, printed as one JSON line: the calls a checkout makes, then the webhook check. */
const SHOP = `
import { PaydApiError, PaydClient, verifyWebhook, WebhookVerificationError } from '@payd/client';
const [baseUrl, clientId, clientSecret, orderId, hookJson, webhookSecret] = (globalThis.Deno ? Deno.args : process.argv.slice(2));
const client = new PaydClient({ baseUrl, clientId, clientSecret });
const created = await client.createIntent({ price: { amount: '249.50', currency: 'INR' }, currency: 'UPI', order_id: orderId });
const again = await client.createIntent({ price: { amount: '249.50', currency: 'INR' }, currency: 'UPI', order_id: orderId });
const fetched = await client.getIntent(created.intent_id);
let listed = false;
for await (const intent of client.listIntents({ limit: 1 })) if (intent.intent_id === created.intent_id) { listed = true; break; }
let refused = null;
try { await client.createIntent({ amount: 1, currency: 'DOGE', order_id: orderId + '-doge' }); } catch (err) { refused = err instanceof PaydApiError ? { code: err.code, status: err.status } : String(err); }
const hook = JSON.parse(hookJson);
const event = await verifyWebhook(hook.body, hook.headers, webhookSecret);
const tampered = await verifyWebhook(hook.body + ' ', hook.headers, webhookSecret).then(() => 'accepted', (err) => (err instanceof WebhookVerificationError ? 'refused' : String(err)));
console.log(JSON.stringify({ runtime: globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'other', id: created.intent_id, same: again.intent_id === created.intent_id, order: fetched.order_id, status: fetched.status, price: fetched.price, listed, refused, event: { id: event.id, type: event.type, intent: event.data.intent_id }, tampered }));
`;

function runShop(argv: string[]): Promise<Record<string, any>> {
  return new Promise((resolve, reject) =>
    execFile(argv[0]!, argv.slice(1), { cwd: shop, timeout: 120_000, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${argv.join(' ')}: ${err.message}\n${stdout}${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
    }),
  );
}

for (const runtime of ['bun', 'deno'] as const) {
  test(`${runtime}: the shop creates, fetches, lists and is refused in payd's words; a delivered webhook verifies and a tampered one does not`, async () => {
    // A real delivery to verify: an intent paid in the sandbox, its payment.success as payd sent it.
    const created = await fetch(`${payd.url}/api/v1/intents/create-payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client-id': payd.clientId, 'x-client-secret': payd.clientSecret },
      body: JSON.stringify({ amount: 10, currency: 'UPI', order_id: `${runtime}-paid` }),
    }).then((r) => r.json() as Promise<{ intent_id: string }>);
    assert.equal((await payd.pay(created.intent_id)).code, 0);
    const hook = await waitFor(async () => payd.receiver.received.find((r) => JSON.parse(r.body).type === 'payment.success' && JSON.parse(r.body).data.intent_id === created.intent_id), 15_000, 'payment.success');

    const args = [payd.url, payd.clientId, payd.clientSecret, `${runtime}-order`, JSON.stringify({ body: hook.body, headers: hook.headers }), payd.webhookSecret];
    const argv = runtime === 'bun' ? [runtimeBin('bun'), 'shop.mjs', ...args] : [runtimeBin('deno'), 'run', '--allow-net', '--allow-read', '--allow-env', 'shop.mjs', ...args];
    const out = await runShop(argv);
    assert.equal(out.runtime, runtime);
    assert.equal(out.same, true, 'a repeated create returns the same intent');
    assert.deepEqual([out.order, out.status, out.price], [`${runtime}-order`, 'pending', { amount: 249.5, currency: 'INR' }]);
    assert.equal(out.listed, true, 'the list, paged one at a time, reaches the intent');
    assert.equal(out.refused.status, 400);
    assert.match(out.refused.code, /METHOD_UNSUPPORTED|INVALID_REQUEST/);
    assert.deepEqual(out.event, { id: hook.headers['webhook-id'], type: 'payment.success', intent: created.intent_id });
    assert.equal(out.tampered, 'refused');
  });
}

// @payd/client as a shop installs it: built (ESM, CommonJS, declarations), resolved by its
// package name through its `exports`, from `import` and from `require`, and typed for both.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { signatureFor } from '../../src/webhooks/sign.ts';

const pkg = fileURLToPath(new URL('../../packages/client/', import.meta.url));
const run = (args: string[], cwd: string) =>
  new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { cwd, timeout: 120_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${args.join(' ')}: ${err.message}\n${stdout}${stderr}`)) : resolve(stdout))),
  );

test('the package builds to ESM and CommonJS with declarations; both verify a payd signature and name the same classes', async (t) => {
  await run([join(pkg, 'scripts/build.mjs')], pkg);
  const shop = mkdtempSync(join(tmpdir(), 'payd-shop-'));
  t.after(() => rmSync(shop, { recursive: true, force: true }));
  mkdirSync(join(shop, 'node_modules/@payd'), { recursive: true });
  symlinkSync(pkg, join(shop, 'node_modules/@payd/client'), 'dir');

  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
  const body = JSON.stringify({ type: 'intent.expired', timestamp: '2026-11-22T10:30:00.000Z', data: { intent_id: 'x', status: 'expired' } });
  const ts = Math.floor(Date.now() / 1000);
  const headers = { 'webhook-id': 'evt_build', 'webhook-timestamp': String(ts), 'webhook-signature': signatureFor(secret, 'evt_build', ts, body) };
  const check = (load: string) => `
    ${load}
    const args = ${JSON.stringify([body, headers, secret])};
    const out = { exports: Object.keys(payd).sort() };
    payd.verifyWebhook(...args).then(async (event) => {
      out.id = event.id;
      out.tampered = await payd.verifyWebhook(args[0].replace('expired', 'settled'), args[1], args[2]).then(() => 'accepted', (e) => e instanceof payd.WebhookVerificationError && e instanceof payd.PaydError ? 'refused' : String(e));
      console.log(JSON.stringify(out));
    });`;
  const esm = JSON.parse(await run(['--input-type=module', '-e', check("import * as payd from '@payd/client';")], shop));
  const cjs = JSON.parse(await run(['--input-type=commonjs', '-e', check("const payd = require('@payd/client');")], shop));
  const expected = ['PaydApiError', 'PaydClient', 'PaydError', 'PaydNetworkError', 'WebhookVerificationError', 'verifyWebhook'];
  assert.deepEqual(esm, { exports: expected, id: 'evt_build', tampered: 'refused' });
  assert.deepEqual(cjs, esm);

  // A TypeScript shop type-checks against the declarations, as ESM and as CommonJS.
  writeFileSync(join(shop, 'package.json'), '{ "type": "module" }');
  const use = `
    const payd = new PaydClient({ baseUrl: 'https://pay.example.com', clientId: 'id', clientSecret: 'sk' });
    export async function order(): Promise<string> {
      const intent = await payd.createIntent({ amount: '100.50', currency: 'UPI', order_id: 'ORD-1' });
      for await (const e of payd.events({ after: 'evt_1' })) if (e.type === 'payment.success') return e.data.status;
      try { await payd.cancelIntent(intent.intent_id); } catch (err) { if (err instanceof PaydApiError && err.code === 'INTENT_NOT_CANCELABLE') return err.detail; }
      const hook = await verifyWebhook('{}', { 'webhook-id': 'a' }, ['whsec_x']);
      return hook.type === 'payment.held' ? hook.data.reason : intent.pay_amount.toFixed(2);
    }`;
  writeFileSync(join(shop, 'shop.mts'), `import { PaydApiError, PaydClient, verifyWebhook } from '@payd/client';\n${use}`);
  writeFileSync(join(shop, 'shop.cts'), `import { PaydApiError, PaydClient, verifyWebhook } from '@payd/client';\n${use}`);
  writeFileSync(join(shop, 'wrong.mts'), `import { PaydClient } from '@payd/client';\nawait new PaydClient({ baseUrl: '', clientId: '', clientSecret: '' }).createIntent({ amount: 1, currency: 'DOGE', order_id: 'x' });\n`);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = (files: string[]) =>
    JSON.stringify({ compilerOptions: { noEmit: true, strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] }, files });
  writeFileSync(join(shop, 'tsconfig.json'), project(['shop.mts', 'shop.cts']));
  writeFileSync(join(shop, 'tsconfig.wrong.json'), project(['wrong.mts']));
  await run([tsc, '-p', 'tsconfig.json'], shop);
  // …and the types are not `any`: an unknown currency does not compile.
  await assert.rejects(run([tsc, '-p', 'tsconfig.wrong.json'], shop), /DOGE/);
});

test('the client is versioned with the API: its version is the OpenAPI document’s', () => {
  const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
  const client = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  assert.equal(client.version, doc.info.version);
  assert.deepEqual(client.dependencies ?? {}, {}, 'no runtime dependencies');
});

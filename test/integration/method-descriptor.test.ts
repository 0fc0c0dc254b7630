import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { methodRegistry } from '../../src/methods/registry.ts';
import { createTestcoin } from '../fixtures/methods/testcoin/method.ts';
import { createResponseChecker } from '../helpers/openapi.ts';
import { baseConfig, startPayd } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Every source file under src/ (the test-only method must need none of them to name it). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : [p];
  });
}

test('a method defined in one folder and registered in one line is created, shown, documented, paid and settled', async (t) => {
  const coin = createTestcoin();
  // The one registration line.
  const methods = methodRegistry([coin.method]);

  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const shop = 'tc1shop42';
  const dir = mkdtempSync(join(tmpdir(), 'payd-testcoin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Only this method is configured: its source is the one the workers run.
  const rawConfig = { ...baseConfig(dir), methods: { TESTCOIN: { address: shop, minAmount: 1, maxAmount: 1000 } } };
  const p = await startPayd({ dir, rawConfig, methods, workers: true, sources: 'configured' });
  t.after(() => p.close());
  const m = await p.merchant('Coin shop', receiver.url);

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(p.url + path, { method, headers: { ...m.headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  // The API document this payd serves lists the method, and its answers match that document.
  const served = await call('GET', '/api/v1/openapi.json');
  const doc = JSON.parse(served.text);
  assert.ok(doc.components.schemas.Intent.properties.currency.enum.includes('TESTCOIN'));
  assert.ok(doc.paths['/api/v1/intents'].get.parameters.find((q: { name: string }) => q.name === 'currency').schema.enum.includes('TESTCOIN'));
  // The create body's currency too, where a developer reads which methods to send.
  const createCurrency = doc.paths['/api/v1/intents/create-payment'].post.requestBody.content['application/json'].schema.properties.currency;
  assert.ok(createCurrency.enum?.includes('TESTCOIN'), JSON.stringify(createCurrency));
  assert.doesNotMatch(createCurrency.description, /USDT_SOL/);
  const checker = createResponseChecker(doc);
  const checked = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, path, body);
    const parsed = JSON.parse(r.text);
    const problem = checker.check(method, p.url + path, r.status, r.type, parsed);
    assert.equal(problem, undefined, problem);
    return { status: r.status, body: parsed };
  };

  // Created over the API, in the method's own rules (3 decimals) and payment link.
  const created = await checked('POST', '/api/v1/intents/create-payment', { amount: 12.345, currency: 'TESTCOIN', order_id: 'coin-1' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.equal(created.body.payment_address, shop);
  assert.equal(created.body.pay_amount, 12.345);
  assert.equal(created.body.payment_uri, `testcoin:${shop}?amount=12.345&memo=coin-1`);
  assert.equal(created.body.reference, undefined);
  const tooFine = await call('POST', '/api/v1/intents/create-payment', { amount: 1.0001, currency: 'TESTCOIN', order_id: 'coin-2' });
  assert.equal(tooFine.status, 400);
  assert.match(tooFine.text, /at most 3 decimal places/);
  const listed = await checked('GET', '/api/v1/intents?currency=TESTCOIN');
  assert.deepEqual(listed.body.data.map((i: { order_id: string }) => i.order_id), ['coin-1']);

  // Shown on the checkout page with the method's own words.
  const page = await fetch(`${p.url}/pay/${created.body.intent_id}`);
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.match(html, /<dd id="method">Testcoin \(test network\)<\/dd>/);
  assert.match(html, /<dt>Testcoin address<\/dt>/);
  assert.match(html, />Open in a Testcoin wallet</);
  assert.match(html, /Send only Testcoin: it exists only in this test\./);
  assert.match(html, /<span class="unit">TST<\/span>/);

  // Paid through its source, settled by the real pipeline: the merchant's webhook arrives.
  coin.pay(shop, 12_345n, 'TC-ABC-1');
  const [hook] = await receiver.waitFor(1, 15_000);
  const event = JSON.parse(hook!.body);
  assert.equal(event.type, 'payment.success');
  assert.equal(checker.checkWebhook(event), undefined);
  assert.equal(event.data.currency, 'TESTCOIN');
  assert.equal(event.data.amount, 12.345);
  assert.equal(event.data.transaction_hash, 'TC-ABC-1');
  const fetched = await checked('GET', `/api/v1/intents/${created.body.intent_id}`);
  assert.equal(fetched.body.status, 'settled');

  // No source file names it: the folder and the registration line are all it took.
  const naming = sourceFiles(SRC).filter((f) => /testcoin/i.test(readFileSync(f, 'utf8')));
  assert.deepEqual(naming, []);
});

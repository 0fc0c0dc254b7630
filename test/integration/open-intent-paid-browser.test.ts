// An open intent paid end to end through the daemon (workers, its own TRON source) and headless
// Chromium, on a 390×844 phone and a 1280 px screen, on both stores: created over the API priced in
// INR, the customer picks UPI on the checkout, goes back and picks USDT on TRON, sends that amount
// (the TronGrid fake lists the transfer as TronGrid does, test/fixtures/chains/REAL-UPSTREAMS.md §1),
// the page turns paid without a reload, and the merchant's signed webhook names USDT_TRC20.
// Rates come from the rate-source fakes (test/fakes/rates/).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseDecimal } from '../../src/domain/money.ts';
import { signatureFor } from '../../src/webhooks/sign.ts';
import { startFakeRateSources } from '../fakes/rates/server.ts';
import { MERCHANT, startFakeTronGrid, txid } from '../fakes/trongrid.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { responseChecker } from '../helpers/openapi.ts';
import { startPayd } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { testStore } from '../helpers/stores.ts';

let browser: Browser;
let rates: Awaited<ReturnType<typeof startFakeRateSources>>;
before(async () => {
  rates = await startFakeRateSources({ coindcx: { 'USDT/INR': '83.75' } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await rates?.close();
});

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(kind, () => {
    for (const size of [
      { width: 390, height: 844 },
      { width: 1280, height: 900 },
    ]) {
      test(`${size.width} px: an open intent priced in INR; the customer picks UPI, then USDT on TRON, pays it; the page turns paid and the webhook is signed`, async (t) => {
        const grid = await startFakeTronGrid();
        t.after(() => grid.close());
        const receiver = await startReceiver();
        t.after(() => receiver.close());
        const p = await startPayd({
          store: testStore(kind),
          workers: true,
          sources: 'configured',
          config: {
            pricing: { refreshSeconds: 3600, quoteSeconds: 600, pairs: { 'USDT/INR': ['coindcx'] }, sources: { coindcx: { baseUrl: rates.sources.coindcx.url } } },
            methods: { SOL: undefined, USDT_SOL: undefined, USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.1, apiKey: 'test-key' } },
          },
        });
        t.after(() => p.close());
        await p.app.pricing.refresher!.refreshOnce(new AbortController().signal);
        const m = await p.merchant('Saree House', receiver.url);
        const created = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 4999, methods: ['UPI', 'USDT_TRC20'], order_id: 'ORD-PAID-OPEN' } });
        assert.equal(created.status, 200, created.text);
        const id = created.body.intent_id as string;
        assert.equal(created.body.currency, null);

        const page = await browser.newPage();
        t.after(() => page.close());
        const problems: string[] = [];
        page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
        page.on('console', (msg) => {
          if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
        });
        await page.setViewportSize(size);
        await page.goto(`${p.url}/pay/${id}`);
        assert.equal((await page.locator('#choice-price').textContent())?.trim(), '₹4,999.00');

        // UPI first, then back to the choice and USDT on TRON instead.
        await page.locator('button[value="UPI"]').click({ noWaitAfter: true });
        await page.locator('#method', { hasText: 'UPI' }).waitFor({ timeout: 20_000 });
        await page.locator('#change-method').click({ noWaitAfter: true });
        await page.locator('button[value="USDT_TRC20"]').click({ noWaitAfter: true });
        await page.locator('#method', { hasText: 'USDT on TRON (TRC-20)' }).waitFor({ timeout: 20_000 });
        const shown = (await page.locator('#pay-amount').textContent())!.trim();
        const amount = parseDecimal(shown, 6);
        assert.ok(amount.ok, shown);
        // ₹4,999 at 83.75 ₹/USDT is 59.69 USDT, plus the intent's unique offset.
        assert.ok(amount.minor >= 59_690_000n && amount.minor < 59_800_000n, shown);
        await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same-document'));

        // The customer's wallet sends exactly that; TronGrid lists the transfer to the shop's address.
        const tx = txid();
        grid.add({ transaction_id: tx, value: String(amount.minor), block_timestamp: Date.now() });
        // The source polls every 0.1 s; generous for a loaded machine.
        await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 30_000 });
        assert.equal(await page.evaluate(() => (window as unknown as { marker?: string }).marker), 'same-document', 'shown live, without a reload');

        const settled = await p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers });
        assert.equal(settled.status, 200, settled.text);
        assert.deepEqual([settled.body.status, settled.body.currency, settled.body.transaction_hash], ['settled', 'USDT_TRC20', tx]);

        const [hook] = await receiver.waitFor(1, 30_000);
        const sig = signatureFor(m.webhookSecret, String(hook!.headers['webhook-id']), Number(hook!.headers['webhook-timestamp']), hook!.body);
        assert.ok(String(hook!.headers['webhook-signature']).split(' ').includes(sig), 'signed with the merchant secret');
        const event = JSON.parse(hook!.body);
        assert.equal(responseChecker().checkWebhook(event), undefined, 'the webhook is as the OpenAPI document describes it');
        assert.deepEqual([event.type, event.data.intent_id, event.data.currency, event.data.transaction_hash], ['payment.success', id, 'USDT_TRC20', tx]);
        assert.deepEqual(problems, []);
      });
    }
  });
}

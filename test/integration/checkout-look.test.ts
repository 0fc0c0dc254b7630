// What a shopper sees on the hosted checkout, state by state, on a phone and on a desktop,
// in headless Chromium. Each state is also saved as a screenshot under test/output/checkout/
// (phone 360×740, desktop 1280×900) for a reviewer to look at.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser, startCheckoutApp, type Browser, type CheckoutApp } from '../helpers/browser.ts';

const SHOTS = fileURLToPath(new URL('../output/checkout/', import.meta.url));
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };
const MINUTE = 60_000;

let browser: Browser;
let co: CheckoutApp;
before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
  co = await startCheckoutApp();
});
after(async () => {
  await browser?.close();
  await co?.close();
});

/** A page that records script errors and CSP violations (console errors). */
async function open(t: TestContext, size: { width: number; height: number }) {
  const page = await browser.newPage();
  t.after(() => page.close());
  await page.setViewportSize(size);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return { page, problems };
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? '').trim();

/** The checks every state shares: no sideways scrolling on a phone, no sentence said twice. */
async function looksClean(page: Page, label: string) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
  assert.ok(scrollWidth <= clientWidth, `${label}: page scrolls sideways (${scrollWidth} > ${clientWidth})`);
  const lines = (await page.locator('main').innerText())
    .split('\n')
    .map((l) => l.replace(/\s*Copy$/, '').trim())
    .filter((l) => l.length > 0);
  const twice = lines.filter((l, i) => lines.indexOf(l) !== i);
  assert.deepEqual(twice, [], `${label}: shown twice`);
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

// One sandbox serves every test; each size uses its own prices, so no amount is offset by another's intent.
const SIZES = [
  { sizeName: 'phone', size: PHONE, upi: [123456.5, '₹1,23,456.50', '123456.50'], usdt: [12.5, '12.50'], paid: [1499.5, '₹1,499.50'], sol: 0.25 },
  { sizeName: 'desktop', size: DESKTOP, upi: [9876543.25, '₹98,76,543.25', '9876543.25'], usdt: [99.9, '99.90'], paid: [250.75, '₹250.75'], sol: 0.5 },
] as const;

for (const { sizeName, size, upi, usdt, paid, sol: solPrice } of SIZES) {
  test(`${sizeName}: pending UPI — TEST MODE banner, ₹ with Indian grouping, the UPI app button on phones only`, async (t) => {
    const { page, problems } = await open(t, size);
    const { pageUrl } = await co.createIntent({ merchantName: 'Chai Corner', orderId: `ORD-${sizeName}-1499`, amount: upi[0] });
    await page.goto(pageUrl);
    await page.locator('svg.qr').waitFor({ state: 'visible' });
    assert.match(await text(page, '#test-mode'), /^TEST MODE · sandbox payment: no real money moves/);
    assert.equal(await text(page, '#pay-amount'), upi[1]);
    assert.equal(await page.locator('#pay-amount').getAttribute('data-copy-value'), upi[2]);
    // The copy button puts the plain number on the clipboard, as a UPI app's amount field wants it.
    await page.evaluate(`window.copied = []; Object.defineProperty(navigator, 'clipboard', { value: { writeText: function (s) { window.copied.push(s); return Promise.resolve(); } } });`);
    await page.locator('button[data-copy="pay-amount"]').click();
    await page.locator('button[data-copy="pay-amount"]', { hasText: 'Copied' }).waitFor();
    assert.deepEqual(await page.evaluate('window.copied'), [upi[2]]);
    assert.equal(await page.locator('#network-warning').count(), 0, 'no network warning for UPI');
    const button = page.locator('#app-button');
    if (sizeName === 'phone') {
      assert.equal(await button.isVisible(), true);
      assert.equal(await text(page, '#app-button'), 'Pay with a UPI app');
      assert.match((await button.getAttribute('href')) ?? '', /^upi:\/\/pay\?pa=sandbox\.shop%40paydsandbox&/);
      const b = (await button.boundingBox())!;
      const q = (await page.locator('svg.qr').boundingBox())!;
      assert.ok(b.y + b.height <= q.y, 'the app button is above the QR');
      assert.ok(b.height >= 44 && b.width >= 280, `a large button (${b.width}×${b.height})`);
    } else {
      assert.equal(await button.isVisible(), false, 'no app button on a desktop');
    }
    await looksClean(page, `${sizeName} pending UPI`);
    await shoot(page, `${sizeName}-1-pending-upi`);
    assert.deepEqual(problems, []);
  });

  test(`${sizeName}: pending USDT and SOL — network warning next to the address, full precision, long addresses wrap`, async (t) => {
    const { page, problems } = await open(t, size);
    const tron = await co.createIntent({ currency: 'USDT_TRC20', amount: usdt[0], orderId: `T-${sizeName}` });
    await page.goto(tron.pageUrl);
    assert.equal(await text(page, '#pay-amount'), usdt[1]);
    assert.match(await page.locator('.amount').innerText(), new RegExp(`^${usdt[1].replace('.', '\\.')}\\s+USDT`));
    assert.match(await text(page, '#network-warning'), /^Send only USDT on the TRON network \(TRC-20\)\./);
    const addr = (await page.locator('#address').boundingBox())!;
    const warn = (await page.locator('#network-warning').boundingBox())!;
    assert.ok(warn.y >= addr.y && warn.y - (addr.y + addr.height) < 80, 'the warning sits right under the address');
    await looksClean(page, `${sizeName} USDT_TRC20`);
    await shoot(page, `${sizeName}-2-pending-usdt-tron`);

    // Two SOL intents of one price: the second pays one step (0.000001) more, shown in full.
    await co.createIntent({ currency: 'SOL', amount: solPrice, orderId: `S1-${sizeName}` });
    const sol = await co.createIntent({ currency: 'SOL', amount: solPrice, orderId: `S2-${sizeName}-${'x'.repeat(90)}` });
    await page.goto(sol.pageUrl);
    assert.match(await page.locator('.amount').innerText(), new RegExp(`^${String(solPrice).replace('.', '\\.')}0*1\\s+SOL`));
    assert.match(await text(page, '#network-warning'), /^Send only SOL on the Solana network\./);
    if (sizeName === 'phone') assert.equal(await text(page, '#app-button'), 'Open in a Solana wallet');
    await looksClean(page, `${sizeName} SOL with a 100-character order id`);
    await shoot(page, `${sizeName}-3-pending-sol`);
    assert.deepEqual(problems, []);
  });

  test(`${sizeName}: paid — the amount and the transaction reference, live and on reload, said once`, async (t) => {
    const { page, problems } = await open(t, size);
    const { id, pageUrl } = await co.createIntent({ amount: paid[0], orderId: `P-${sizeName}` });
    await page.goto(pageUrl);
    await page.locator('svg.qr').waitFor({ state: 'visible' });
    const txRef = await co.settle(id);
    await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 5_000 });
    assert.equal(await text(page, '#paid-amount'), paid[1]);
    assert.equal(await text(page, '#paid-ref'), txRef, 'the reference arrives live');
    await looksClean(page, `${sizeName} paid`);
    await page.reload();
    assert.equal(await text(page, '#paid-ref'), txRef);
    assert.equal(await page.locator('#paid-ref').isVisible(), true);
    assert.equal(await page.locator('svg.qr').isVisible(), false);
    assert.match(await page.locator('main').innerText(), /You can close this page now/);
    await looksClean(page, `${sizeName} paid (reload)`);
    await shoot(page, `${sizeName}-4-paid`);
    assert.deepEqual(problems, []);
  });

  test(`${sizeName}: expired and not found — one clear message each`, async (t) => {
    const { page, problems } = await open(t, size);
    const { pageUrl } = await co.createIntent({ orderId: `E-${sizeName}` });
    co.clock.advance(31 * MINUTE);
    try {
      await page.goto(pageUrl);
      assert.equal(await text(page, '#status-text'), 'This payment request has expired');
      assert.equal(await page.locator('svg.qr').isVisible(), false);
      const body = await page.locator('main').innerText();
      assert.equal(body.match(/expired/g)?.length, 1, body);
      await looksClean(page, `${sizeName} expired`);
      await shoot(page, `${sizeName}-5-expired`);
    } finally {
      co.clock.advance(-31 * MINUTE);
    }
    const res = await page.goto(`${co.url}/pay/5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10`);
    assert.equal(res?.status(), 404);
    await looksClean(page, `${sizeName} not found`);
    await shoot(page, `${sizeName}-6-not-found`);
    assert.deepEqual(problems.filter((p) => !/status of 404/.test(p)), []);
  });
}

test('HEAD /pay/{id} answers like GET without a body; the strict CSP stays', async () => {
  const { pageUrl } = await co.createIntent({ orderId: 'HEAD-1' });
  const get = await fetch(pageUrl);
  const head = await fetch(pageUrl, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), '');
  for (const h of ['content-type', 'content-security-policy', 'cache-control', 'x-frame-options', 'referrer-policy']) assert.equal(head.headers.get(h), get.headers.get(h), h);
  assert.match(head.headers.get('content-security-policy')!, /script-src 'self'; style-src 'self'/);
  assert.doesNotMatch(await get.text(), /<script>|<style>| style=| on\w+=/);
  const missing = await fetch(`${co.url}/pay/5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10`, { method: 'HEAD' });
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), '');
});

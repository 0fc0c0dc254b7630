// The hosted checkout on a 390×844 phone (an iPhone 12–15's CSS viewport) in headless Chromium:
// without scrolling the shopper sees the QR code and the time left, and is told what happens
// next; the time left stays on screen while they scroll. The page names the payee as the
// payment link does. Screenshots of the first screen go to test/output/checkout/ for review.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser, startCheckoutApp, type Browser, type CheckoutApp } from '../helpers/browser.ts';

const SHOTS = fileURLToPath(new URL('../output/checkout/', import.meta.url));
const PHONE = { width: 390, height: 844 };
const PAYEE = 'Chai Corner Foods Pvt Ltd';

let browser: Browser;
let co: CheckoutApp;
before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
  // A configured UPI payee name (it goes into every payment link as the payee) unlike the merchant's name.
  co = await startCheckoutApp({
    methods: {
      UPI: {
        vpa: 'shop@hdfcbank',
        payeeName: PAYEE,
        imap: { host: '127.0.0.1', port: 1, secure: false, user: 'alerts@example.com', password: 'x' },
        accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
      },
    },
  });
});
after(async () => {
  await browser?.close();
  await co?.close();
});

async function phone(t: TestContext): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  t.after(() => page.close());
  await page.setViewportSize(PHONE);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return { page, problems };
}

/** The element's box lies wholly inside the visible viewport (as scrolled now). */
async function onScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: window.innerHeight, w: window.innerWidth };
  });
  return box.top >= 0 && box.left >= 0 && box.bottom <= box.h && box.right <= box.w && box.bottom > box.top;
}

for (const { currency, amount, label } of [
  { currency: 'UPI', amount: 1499, label: 'upi' },
  { currency: 'USDT_TRC20', amount: 25, label: 'usdt-tron' },
  { currency: 'SOL', amount: 0.75, label: 'sol' },
] as const) {
  test(`390×844 phone, ${currency}: QR code, time left and what happens next on the first screen; the time left stays visible when scrolled`, async (t) => {
    const { page, problems } = await phone(t);
    const shop = 'http://127.0.0.1:9/thanks';
    const { pageUrl } = await co.createIntent({ currency, amount, orderId: `PHONE-${label}`, returnUrl: shop });
    await page.goto(pageUrl);
    await page.locator('svg.qr').waitFor({ state: 'visible' });
    await page.locator('html.js').waitFor({ state: 'attached' });
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    assert.ok(await onScreen(page, 'svg.qr'), 'the whole QR code is on the first screen');
    assert.ok(await onScreen(page, '#countdown'), 'the time left is on the first screen');
    assert.match(await page.locator('.countdown').innerText(), /^Expires in \d+:\d\d$/);
    assert.ok(await onScreen(page, '#next-step'), 'what happens next is on the first screen');
    assert.match(await page.locator('#next-step').innerText(), /updates by itself as soon as your payment is received and takes you back to Chai Corner\. No need to reload it\./);
    assert.ok(await onScreen(page, '#pay-amount'));
    assert.ok(await onScreen(page, '#app-button'));
    await page.screenshot({ path: `${SHOTS}phone-390x844-${label}.png` });

    // Scrolled to the very end (the address and the network warning), the time left is still on screen.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForFunction(() => window.scrollY > 0 || document.documentElement.scrollHeight <= window.innerHeight);
    assert.ok(await onScreen(page, '#countdown'), 'the time left stays visible while scrolling');
    assert.ok(await onScreen(page, '#address'));
    await page.screenshot({ path: `${SHOTS}phone-390x844-${label}-scrolled.png` });
    assert.deepEqual(problems, []);
  });
}

test('the page names the payee as the payment link does (title, heading, UPI pn and Solana Pay label), and the merchant beside the order', async (t) => {
  const { page, problems } = await phone(t);
  for (const currency of ['UPI', 'SOL'] as const) {
    const { pageUrl } = await co.createIntent({ merchantName: 'Chai Corner', currency, amount: 42, orderId: `NAME-${currency}` });
    await page.goto(pageUrl);
    assert.equal(await page.title(), `Pay ${PAYEE}`);
    assert.equal(((await page.locator('#payee-name').textContent()) ?? '').trim(), PAYEE);
    const link = new URL((await page.locator('#app-button').getAttribute('href'))!.replace(/^(upi:\/\/|solana:)/, 'x://h/'));
    assert.equal(link.searchParams.get(currency === 'UPI' ? 'pn' : 'label'), PAYEE, currency);
    assert.equal(((await page.locator('#merchant-name').textContent()) ?? '').trim(), 'Chai Corner');
    // Without a return URL the page does not promise to take the shopper anywhere.
    assert.match(await page.locator('#next-step').innerText(), /updates by itself as soon as your payment is received\. No need to reload it\./);
  }
  assert.deepEqual(problems, []);
});

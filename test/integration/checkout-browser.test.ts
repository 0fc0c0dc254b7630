// The hosted checkout page in headless Chromium: what a paying customer sees and when.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { launchBrowser, startCheckoutApp, startReturnServer, type Browser, type CheckoutApp } from '../helpers/browser.ts';

const MINUTE = 60_000;
const XSS = '<img src=x onerror=alert(1)>';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/**
 * A sandbox app and a browser page that records script errors, CSP violations
 * (console errors) and dialogs. The page closes first, so the browser's open
 * connections do not hold the server's graceful close.
 */
async function setup(t: TestContext): Promise<{ co: CheckoutApp; page: Page; problems: string[]; dialogs: string[] }> {
  const co = await startCheckoutApp();
  const page = await browser.newPage().catch(async (err) => {
    await co.close();
    throw err;
  });
  t.after(async () => {
    await page.close();
    await co.close();
  });
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { co, page, problems, dialogs };
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? '').trim();

test('the customer sees the QR and exact amount, sees "paid" live without a reload, then lands on return_url', async (t) => {
  const shop = await startReturnServer();
  t.after(() => shop.close());
  const { co, page, problems, dialogs } = await setup(t);
  const { id, pageUrl } = await co.createIntent({ merchantName: 'Chai Corner', orderId: 'ORD-42', returnUrl: shop.url, amount: 120.5 });
  const navigations: string[] = [];
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) navigations.push(f.url());
  });

  const res = await page.goto(pageUrl);
  assert.equal(res?.status(), 200);
  assert.equal(res?.headers()['content-security-policy']?.includes("script-src 'self'"), true);
  await page.locator('svg.qr').waitFor({ state: 'visible' });
  assert.equal(await text(page, '#payee-name'), 'Chai Corner');
  assert.equal(await text(page, '#pay-amount'), '₹120.50');
  assert.match(await text(page, '#exact-note'), /pay exactly this amount/i);
  assert.equal(await text(page, '#method'), 'UPI');
  assert.equal(await text(page, '#address'), 'sandbox.shop@paydsandbox');
  assert.equal(await text(page, '#status-text'), 'Waiting for your payment');
  assert.match(await text(page, '#countdown'), /^(29|30):\d\d$/);
  assert.equal(await page.locator('button.copy').first().isVisible(), true, 'copy buttons appear once the script runs');

  // A marker in the live document: it survives only if the page is never reloaded.
  await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same-document'));
  const navigationsBefore = navigations.length;
  const settledAt = Date.now();
  await co.settle(id);

  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 2_000 });
  assert.ok(Date.now() - settledAt < 2_000, 'paid state shown within 2 s');
  assert.equal(await page.evaluate(() => (window as unknown as { marker?: string }).marker), 'same-document');
  assert.equal(navigations.length, navigationsBefore, 'no navigation before the redirect');
  assert.equal(await page.locator('.when-settled').isVisible(), true);
  assert.equal(await page.locator('#redirect-note').isVisible(), true);
  assert.equal(await page.locator('.when-pending').isVisible(), false);

  const visit = await shop.next(5_000);
  const shownFor = Date.now() - settledAt;
  assert.ok(shownFor >= 1_500, `the confirmation stays up ~2 s before redirecting (was ${shownFor} ms)`);
  assert.equal(visit.pathname, '/orders/done');
  assert.equal(visit.searchParams.get('src'), 'payd', 'the merchant query is kept');
  assert.equal(visit.searchParams.get('intent_id'), id);
  assert.equal(visit.searchParams.get('order_id'), 'ORD-42');
  await page.waitForURL((u) => u.pathname === '/orders/done');
  assert.equal(await text(page, '#thanks'), 'Back at the shop');
  assert.deepEqual(problems, [], 'no script errors or CSP violations');
  assert.deepEqual(dialogs, []);
});

test('without return_url the page shows a clear paid state and stays', async (t) => {
  const { co, page, problems } = await setup(t);
  const { id, pageUrl } = await co.createIntent();
  await page.goto(pageUrl);
  await page.locator('svg.qr').waitFor();
  await co.settle(id);
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 2_000 });
  assert.equal(await page.locator('.no-redirect').isVisible(), true);
  assert.equal(await page.locator('#redirect-note').isVisible(), false);
  assert.equal(new URL(page.url()).pathname, `/pay/${id}`);
  assert.deepEqual(problems, []);
});

test('an intent running out of time turns into a clear expired state live, and stays expired on reload', async (t) => {
  const { co, page, problems } = await setup(t);
  const { pageUrl } = await co.createIntent();
  await page.goto(pageUrl);
  await page.locator('svg.qr').waitFor();

  co.clock.advance(31 * MINUTE); // past the 30-minute ttl on the server's clock
  await page.locator('#status-text', { hasText: 'This payment request has expired' }).waitFor({ timeout: 2_000 });
  assert.equal(await page.locator('.when-expired').isVisible(), true);
  assert.equal(await page.locator('svg.qr').isVisible(), false, 'no QR to pay an expired request');
  assert.equal(await page.locator('#pay-amount').isVisible(), false);

  await page.reload();
  assert.equal(await text(page, '#status-text'), 'This payment request has expired');
  assert.equal(await page.locator('.when-expired').isVisible(), true);
  assert.deepEqual(problems, []);
});

test('unknown and malformed intent ids get a friendly 404 page', async (t) => {
  const { co, page } = await setup(t);
  for (const id of [randomUUID(), 'not-a-uuid', '%3Cscript%3Ealert(1)%3C%2Fscript%3E']) {
    const res = await page.goto(`${co.url}/pay/${id}`);
    assert.equal(res?.status(), 404, id);
    assert.match(res?.headers()['content-type'] ?? '', /^text\/html/);
    assert.equal(await text(page, 'h1'), 'Payment not found');
    assert.match(await text(page, 'main'), /link is not valid/);
  }
});

test('markup in the merchant name and order_id is shown as text and never runs', async (t) => {
  const { co, page, problems, dialogs } = await setup(t);
  const { pageUrl } = await co.createIntent({ merchantName: XSS, orderId: XSS });
  await page.goto(pageUrl);
  await page.locator('svg.qr').waitFor();
  assert.equal(await text(page, '#payee-name'), XSS);
  assert.equal(await text(page, '#order-id'), XSS);
  assert.equal(await page.title(), `Pay ${XSS}`);
  assert.equal(await page.locator('img').count(), 0, 'no <img> element was created');
  await page.waitForTimeout(300); // give a (wrongly) injected onerror handler time to fire
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, []);
});

test('when the websocket is refused the page falls back to polling and still turns paid', async (t) => {
  const { co, page } = await setup(t);
  const { id, pageUrl } = await co.createIntent();
  // Like a proxy that drops websockets: every socket to the server is closed at once.
  await page.routeWebSocket(/\/ws$/, (ws) => ws.close({ code: 1011, reason: 'blocked by test' }));
  const polls: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith(`/pay/${id}/status`)) polls.push(r.url());
  });
  await page.goto(pageUrl);
  await page.locator('svg.qr').waitFor();
  await co.settle(id);
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 3_000 });
  assert.ok(polls.length >= 1, 'the JSON status endpoint was polled');
  assert.equal(new URL(page.url()).pathname, `/pay/${id}`);
});

// A payment link's public page in headless Chromium: a fixed-price link on a 390×844 phone and a
// 1280 px screen shows its title, price and the choice of method, fits the screen and passes
// axe-core (no serious or critical violation); a counter QR (the customer enters the amount) on a
// 360 px phone asks for the amount first, then offers the choice and shows the amount to pay in
// large type, and turns paid without a reload; a deactivated link says so in plain words. Rates
// come from the rate-source fakes (test/fakes/rates/).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserAndRates, startCheckoutApp, type CheckoutApp } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/console.ts';

const chromiumAndRates = browserAndRates();

/** A sandbox payd pricing USDT and SOL from the fakes, with one merchant; its links' pages are under its own address. */
async function shop(t: { after(fn: () => Promise<void>): void }): Promise<{ co: CheckoutApp; merchantId: string; pageOf(url: string): string }> {
  const co = await startCheckoutApp({
    pricing: chromiumAndRates.pricing(),
  });
  t.after(() => co.close());
  await co.app.pricing.refresher!.refreshOnce(new AbortController().signal);
  const creds = await co.app.merchants.create({ name: 'Saree House' });
  // The link's url is under server.publicUrl; the test opens the same path on the app's own address.
  return { co, merchantId: creds.client_id, pageOf: (url) => `${co.url}${new URL(url).pathname}` };
}

async function open(t: { after(fn: () => Promise<void>): void }, size: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
  const page = await chromiumAndRates.browser().newPage();
  t.after(() => page.close());
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.setViewportSize(size);
  return { page, problems };
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

for (const size of [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
]) {
  test(`${size.width} px: a fixed-price link shows its title, price and the choice of method; nothing is created until a choice`, async (t) => {
    const { co, merchantId, pageOf } = await shop(t);
    const link = await co.app.links.create(merchantId, { title: 'Blue saree', price: { amount: '1999', currency: 'INR' }, methods: ['UPI', 'USDT_TRC20', 'SOL'] }, 'cli');
    const { page, problems } = await open(t, size);
    await page.goto(pageOf(link.url));

    assert.equal((await page.locator('#link-title').textContent())?.trim(), 'Blue saree');
    assert.equal((await page.locator('#choice-price').textContent())?.trim(), '₹1,999.00');
    const groups = await page.locator('fieldset.choice-group legend').allTextContents();
    assert.deepEqual(
      groups.map((g) => g.replace(/\s+/g, ' ').trim().split(' ')[0]),
      ['UPI', 'USDT', 'SOL'],
    );
    assert.match((await page.locator('button[value="USDT_TRC20"]').textContent())!.replace(/\s+/g, ' '), /TRON \(TRC-20\) about 23\.87 USDT/);
    for (const b of await page.locator('.choice-option').all()) {
      const box = (await b.boundingBox())!;
      assert.ok(box.height >= 48, JSON.stringify(box));
    }
    assert.equal(await noSidewaysScroll(page), true, 'no sideways scrolling');
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations));
    assert.equal((await co.app.db.selectFrom('intents').select('id').execute()).length, 0, 'an opened link creates no intent');

    // The customer picks UPI: only now is the intent created, and its checkout shows the amount.
    await page.locator('button[value="UPI"]').click({ noWaitAfter: true });
    await page.locator('#pay-amount').waitFor({ timeout: 20_000 });
    const intents = await co.app.db.selectFrom('intents').select(['link_id', 'method']).execute();
    assert.deepEqual(intents, [{ link_id: link.link_id, method: 'UPI' }]);
    assert.deepEqual(problems, []);
  });
}

test('360 px: a counter QR asks for the amount, then offers the choice, then shows the amount to pay in large type and turns paid live', async (t) => {
  const { co, merchantId, pageOf } = await shop(t);
  const link = await co.app.links.create(merchantId, { title: 'Counter', customerAmount: { min: '10', max: '5000', currency: 'INR' } }, 'cli');
  const { page, problems } = await open(t, { width: 360, height: 740 });
  await page.goto(pageOf(link.url));

  assert.equal((await page.locator('#link-title').textContent())?.trim(), 'Counter');
  assert.equal(await page.locator('#method-choice').count(), 0, 'no choice before an amount');
  const box = page.locator('#amount');
  assert.match((await page.locator('label[for="amount"]').textContent())!, /INR, ₹10\.00 to ₹5,000\.00/);
  assert.equal(await noSidewaysScroll(page), true);
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], JSON.stringify(violations));

  // Out of bounds: said plainly, nothing created.
  await box.fill('9000');
  await page.locator('#amount-next').click({ noWaitAfter: true });
  await page.locator('#link-error').waitFor({ timeout: 20_000 });
  assert.match((await page.locator('#link-error').textContent())!, /between 10(\.00)? and 5000(\.00)? INR/);
  // That page is answered 400, which Chromium logs as a failed load: the one error expected here.
  assert.deepEqual(problems.splice(0), ['console: Failed to load resource: the server responded with a status of 400 ()']);

  await page.locator('#amount').fill('450');
  await page.locator('#amount-next').click({ noWaitAfter: true });
  await page.locator('#method-choice').waitFor({ timeout: 20_000 });
  assert.equal((await page.locator('#choice-price').textContent())?.trim(), '₹450.00');
  assert.equal(await noSidewaysScroll(page), true);
  const choiceViolations = await axeViolations(page);
  assert.deepEqual(choiceViolations, [], JSON.stringify(choiceViolations));
  assert.equal((await co.app.db.selectFrom('intents').select('id').execute()).length, 0, 'still nothing created');

  await page.locator('button[value="UPI"]').click({ noWaitAfter: true });
  await page.locator('#pay-amount').waitFor({ timeout: 20_000 });
  const amount = (await page.locator('#pay-amount').textContent())!.trim();
  assert.match(amount, /^₹450\.\d\d$/, 'the unique amount to pay, close to what was typed');
  // In large type: well above the body text, readable at arm's length.
  const sizes = await page.evaluate(() => ({ amount: parseFloat(getComputedStyle(document.getElementById('pay-amount')!).fontSize), body: parseFloat(getComputedStyle(document.body).fontSize) }));
  assert.ok(sizes.amount >= 24 && sizes.amount >= 1.5 * sizes.body, JSON.stringify(sizes));
  assert.equal(await noSidewaysScroll(page), true);

  // Paid: the page says so by itself, without a reload.
  await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same-document'));
  const intentId = new URL(page.url()).pathname.slice('/pay/'.length);
  await co.settle(intentId);
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 20_000 });
  assert.equal(await page.evaluate(() => (window as unknown as { marker?: string }).marker), 'same-document', 'updated live');
  assert.deepEqual(problems, []);
});

test('390 px: a deactivated link says so in plain words and offers no way to pay', async (t) => {
  const { co, merchantId, pageOf } = await shop(t);
  const link = await co.app.links.create(merchantId, { title: 'Old stock', price: { amount: '250', currency: 'INR' } }, 'cli');
  await co.app.links.deactivate(link.link_id, { actor: 'cli' });
  const { page, problems } = await open(t, { width: 390, height: 844 });
  await page.goto(pageOf(link.url));
  assert.equal((await page.locator('#link-title').textContent())?.trim(), 'Old stock');
  assert.equal((await page.locator('#link-closed').textContent())?.trim(), 'This payment link has been turned off by the shop.');
  assert.equal(await page.locator('.choice-option, #amount').count(), 0);
  assert.equal(await noSidewaysScroll(page), true);
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], JSON.stringify(violations));
  assert.deepEqual(problems, []);
});

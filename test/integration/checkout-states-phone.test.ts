// The hosted checkout has one state at a time, on a 390×844 phone in headless Chromium: once money
// is held on an intent the page says what arrived and offers no way to pay the same amount again;
// accepted, it is a receipt; returned by the shop, it says so and asks for the full amount once more;
// paid in part on a Solana Pay reference, it asks for exactly the rest.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launchBrowser, startCheckoutApp, type Browser, type CheckoutApp } from '../helpers/browser.ts';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

async function phone(t: TestContext): Promise<{ co: CheckoutApp; page: Page; problems: string[] }> {
  const co = await startCheckoutApp();
  const page = await browser.newPage().catch(async (err) => {
    await co.close();
    throw err;
  });
  t.after(async () => {
    await page.close();
    await co.close();
  });
  await page.setViewportSize({ width: 390, height: 844 });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return { co, page, problems };
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ').trim();
/** What a person sees: the visible text of the card, whitespace folded. */
const seen = async (page: Page) => (await page.locator('#checkout').innerText()).replace(/\s+/g, ' ');

async function pay(co: CheckoutApp, intentId: string, amountMinor: bigint, txRef: string, withReference = false) {
  const row = (await co.app.intents.find(intentId))!;
  const now = co.clock.now();
  return co.app.ledger.ingest({ method: row.method, receiver: row.receiver, amountMinor, txRef, occurredAt: now, observedAt: now, source: 'imap', ...(withReference && row.reference ? { references: [row.reference] } : {}) });
}

async function post(co: CheckoutApp, path: string, headers: Record<string, string>) {
  const res = await fetch(co.url + path, { method: 'POST', headers });
  assert.equal(res.status, 200, await res.text());
}

/** Nothing on the page invites another payment: no button, no QR, no amount to pay, no countdown. */
async function assertNoWayToPay(page: Page) {
  for (const selector of ['#app-button', 'svg.qr', '#pay-amount', '#countdown', '#next-step']) {
    assert.equal(await page.locator(selector).isVisible(), false, `${selector} is hidden`);
  }
  const words = await seen(page);
  assert.doesNotMatch(words, /Waiting for your payment|Expires in|Pay exactly|Amount to pay|Scan with/);
}

async function assertFitsThePhone(page: Page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen`);
}

test('held: after a short payment the open page turns into one state that says what arrived and shows no way to pay again; accepted, it is a receipt', async (t) => {
  const { co, page, problems } = await phone(t);
  const { id, pageUrl, headers } = await co.createIntent({ amount: 620 });
  const asked = (await co.app.intents.find(id))!.payAmountMinor;
  await page.goto(pageUrl);
  await page.locator('svg.qr').waitFor();

  const short = asked - 11n;
  assert.equal((await pay(co, id, short, '612300000001')).kind, 'held');
  const shortText = `₹${(Number(short) / 100).toFixed(2)}`;
  await page.locator('#held-note').waitFor({ timeout: 8_000 });
  assert.equal(await text(page, '#status-text'), 'We received a payment: the shop is checking it');
  assert.match(await text(page, '#held-note'), new RegExp(`^We received your payment of ${shortText.replace('.', '\\.')} less than the amount asked\\..*Please do not pay again\\.`));
  await assertNoWayToPay(page);
  await assertFitsThePhone(page);

  // Reloaded, and after the page's own polling: still the same single state.
  await page.reload();
  await page.waitForTimeout(1_500);
  assert.equal(await text(page, '#status-text'), 'We received a payment: the shop is checking it');
  await assertNoWayToPay(page);

  await post(co, `/api/v1/intents/${id}/payments/612300000001/accept`, headers);
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 8_000 });
  assert.equal(await text(page, '#paid-amount'), shortText);
  assert.equal(await page.locator('#held-note').isVisible(), false);
  await assertNoWayToPay(page);
  await assertFitsThePhone(page);
  assert.deepEqual(problems, []);
});

test('refunded: the page says the shop returned the payment and asks for the full amount once more', async (t) => {
  const { co, page, problems } = await phone(t);
  const { id, pageUrl, headers } = await co.createIntent({ amount: 450 });
  const asked = (await co.app.intents.find(id))!.payAmountMinor;
  assert.equal((await pay(co, id, asked - 50n, '612300000002')).kind, 'held');
  await post(co, `/api/v1/intents/${id}/payments/612300000002/refunded`, headers);

  await page.goto(pageUrl);
  const returned = `₹${(Number(asked - 50n) / 100).toFixed(2)}`;
  assert.equal(await text(page, '#refund-note'), `Chai Corner says it returned your payment of ${returned}. To pay for this order, pay the amount below.`);
  assert.equal(await text(page, '#status-text'), 'Waiting for your payment');
  assert.equal(await page.locator('#held-note').count(), 0);
  assert.equal(await page.locator('#pay-amount').getAttribute('data-copy-value'), (Number(asked) / 100).toFixed(2));
  assert.equal(await page.locator('#app-button').isVisible(), true);
  await assertFitsThePhone(page);
  assert.deepEqual(problems, []);
});

test('remainder: a part paid on a Solana Pay reference leaves one thing to do, pay exactly the rest', async (t) => {
  const { co, page, problems } = await phone(t);
  const { id, pageUrl } = await co.createIntent({ amount: 2, currency: 'SOL' });
  const asked = (await co.app.intents.find(id))!.payAmountMinor;
  assert.equal((await pay(co, id, 500_000_000n, 'sigStatesPart', true)).kind, 'credited');

  await page.goto(pageUrl);
  const due = asked - 500_000_000n;
  assert.equal(await text(page, '.amount-box .label'), 'Still to pay');
  assert.equal(await page.locator('#pay-amount').getAttribute('data-copy-value'), (Number(due) / 1e9).toString());
  assert.equal(await page.locator('#held-note').count(), 0);
  assert.equal(new URL((await page.locator('#app-button').getAttribute('href'))!).searchParams.get('amount'), (Number(due) / 1e9).toString());
  assert.doesNotMatch(await seen(page), /do not pay again/);
  await assertFitsThePhone(page);
  assert.deepEqual(problems, []);
});

// Held payments on the hosted checkout, in headless Chromium: a held payment is told in a shopper's
// words and turns "paid" live once the merchant accepts it over the API; a part paid on a Solana
// Pay reference makes the page ask for exactly the rest, with a link for that amount.
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

async function setup(t: TestContext): Promise<{ co: CheckoutApp; page: Page; problems: string[] }> {
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
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return { co, page, problems };
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** A payment to the intent's receiver as its method's source hands it to the ledger. */
async function pay(co: CheckoutApp, intentId: string, amountMinor: bigint, txRef: string, withReference = false) {
  const row = (await co.app.intents.find(intentId))!;
  const now = co.clock.now();
  return co.app.ledger.ingest({ method: row.method, receiver: row.receiver, amountMinor, txRef, occurredAt: now, observedAt: now, source: 'imap', ...(withReference && row.reference ? { references: [row.reference] } : {}) });
}

async function api(co: CheckoutApp, path: string, headers: Record<string, string>) {
  const res = await fetch(co.url + path, { method: 'POST', headers });
  return { status: res.status, body: await res.json() };
}

test('a short payment is held: the open page says what arrived and that the shop has been told; accepted over the API it shows paid', async (t) => {
  const { co, page, problems } = await setup(t);
  const { id, pageUrl, headers } = await co.createIntent({ amount: 120.5 });
  const payAmount = (await co.app.intents.find(id))!.payAmountMinor;
  await page.goto(pageUrl);
  await page.locator('svg.qr').waitFor();
  assert.equal(await page.locator('#held-note').count(), 0);

  // ₹0.40 short, no tolerance configured: held for the merchant, the intent stays pending.
  const short = payAmount - 40n;
  assert.equal((await pay(co, id, short, '612345678901')).kind, 'held');
  const shortText = `₹${(Number(short) / 100).toFixed(2)}`;
  await page.locator('#held-note').waitFor({ timeout: 4_000 });
  const note = await text(page, '#held-note');
  assert.ok(note.includes(`We received your payment of ${shortText} less than the amount asked`), note);
  assert.match(note, /The shop has been told/);
  assert.match(note, /Please do not pay again/);

  const accepted = await api(co, `/api/v1/intents/${id}/payments/612345678901/accept`, headers);
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 4_000 });
  assert.equal(await page.locator('.when-settled').isVisible(), true);
  assert.equal(await page.locator('#held-note').isVisible(), false, 'the held note is gone once paid');
  assert.equal(await text(page, '#paid-amount'), shortText, 'the receipt shows what was received');
  assert.equal(await text(page, '#paid-ref'), '612345678901');
  assert.deepEqual(problems, []);
});

test('a payment to a canceled intent: the page says it arrived after the cancel and the shop has been told; accepted, it turns paid', async (t) => {
  const { co, page, problems } = await setup(t);
  const { id, pageUrl, headers } = await co.createIntent({ amount: 75 });
  const payAmount = (await co.app.intents.find(id))!.payAmountMinor;
  assert.equal((await api(co, `/api/v1/intents/${id}/cancel`, headers)).status, 200);
  assert.equal((await pay(co, id, payAmount, '698765432109')).kind, 'held');

  await page.goto(pageUrl);
  // The money is what matters to the payer now: the page says it arrived, not "canceled, start again".
  assert.equal(await text(page, '#status-text'), 'We received a payment: the shop is checking it');
  assert.equal(await page.locator('.when-canceled').isVisible(), false);
  const note = await text(page, '#held-note');
  assert.match(note, /We received your payment of ₹75\.\d\d after this payment request was canceled\. The shop has been told/);

  assert.equal((await api(co, `/api/v1/intents/${id}/payments/698765432109/accept`, headers)).status, 200);
  // The socket of a canceled intent closes; the page keeps polling (every 5 s) and turns paid.
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 12_000 });
  assert.equal(await page.locator('.when-settled').isVisible(), true);
  assert.equal(await page.locator('#held-note').isVisible(), false);
  assert.deepEqual(problems, []);
});

test('Solana: after a part paid on the reference the page asks for exactly the rest, its link carries that amount and the same reference', async (t) => {
  const { co, page, problems } = await setup(t);
  const { id, pageUrl } = await co.createIntent({ amount: 1.5, currency: 'SOL' });
  const intent = (await co.app.intents.find(id))!;
  await page.goto(pageUrl);
  await page.locator('svg.qr').waitFor();
  const before = await page.locator('#app-button').getAttribute('href');

  assert.equal((await pay(co, id, 1_000_000_000n, 'sigPartOne', true)).kind, 'credited');
  await page.locator('#received-note').waitFor({ timeout: 4_000 });
  const due = intent.payAmountMinor - 1_000_000_000n;
  const dueText = (Number(due) / 1e9).toString();
  assert.equal(await text(page, '.amount-box .label'), 'Still to pay');
  assert.equal(await page.locator('#pay-amount').getAttribute('data-copy-value'), dueText);
  assert.match(await text(page, '#received-note'), /^We received 1\.00 SOL of 1\.5\d* SOL\.$/);
  assert.equal(await text(page, '#status-text'), 'Waiting for your payment');

  const href = (await page.locator('#app-button').getAttribute('href'))!;
  const link = new URL(href);
  assert.equal(link.searchParams.get('amount'), dueText, 'the link asks for exactly the remainder');
  assert.equal(link.searchParams.get('reference'), intent.reference);
  assert.equal(await page.locator('a.qr-link').getAttribute('href'), href, 'the QR code encodes the same link');
  assert.equal(href.replace(/amount=[^&]*/, ''), before!.replace(/amount=[^&]*/, ''), 'only the amount changed');

  assert.equal((await pay(co, id, due, 'sigPartTwo', true)).kind, 'settled');
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 4_000 });
  assert.match(await text(page, '#paid-amount'), /^1\.5\d* SOL$/);
  assert.equal(await text(page, '#paid-ref'), 'sigPartTwo');
  assert.deepEqual(problems, []);
});

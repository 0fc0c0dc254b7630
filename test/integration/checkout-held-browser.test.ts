// Held payments on the hosted checkout, in headless Chromium: a held payment is told in a shopper's
// words and turns "paid" live once the merchant accepts it over the API; a part paid on a Solana
// Pay reference makes the page ask for exactly the rest, with a link for that amount. On a 390×844
// phone the page has one state at a time: held money shows no way to pay the same amount again;
// accepted it is a receipt; returned by the shop it asks for the full amount once more.
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
  return co.app.ledger.ingest({ method: row.method!, receiver: row.receiver, amountMinor, txRef, occurredAt: now, observedAt: now, source: 'imap', ...(withReference && row.reference ? { references: [row.reference] } : {}) });
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

/** What a person sees: the visible text of the card, whitespace folded. */
const seen = async (page: Page) => (await page.locator('#checkout').innerText()).replace(/\s+/g, ' ');

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
  const { co, page, problems } = await setup(t);
  await page.setViewportSize({ width: 390, height: 844 });
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

  assert.equal((await api(co, `/api/v1/intents/${id}/payments/612300000001/accept`, headers)).status, 200);
  await page.locator('#status-text', { hasText: 'Payment received' }).waitFor({ timeout: 8_000 });
  assert.equal(await text(page, '#paid-amount'), shortText);
  assert.equal(await page.locator('#held-note').isVisible(), false);
  await assertNoWayToPay(page);
  await assertFitsThePhone(page);
  assert.deepEqual(problems, []);
});

test('refunded: the page says the shop returned the payment and asks for the full amount once more', async (t) => {
  const { co, page, problems } = await setup(t);
  await page.setViewportSize({ width: 390, height: 844 });
  const { id, pageUrl, headers } = await co.createIntent({ amount: 450 });
  const asked = (await co.app.intents.find(id))!.payAmountMinor;
  assert.equal((await pay(co, id, asked - 50n, '612300000002')).kind, 'held');
  assert.equal((await api(co, `/api/v1/intents/${id}/payments/612300000002/refunded`, headers)).status, 200);

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
  const { co, page, problems } = await setup(t);
  await page.setViewportSize({ width: 390, height: 844 });
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

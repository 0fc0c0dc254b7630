import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, startCheckoutApp, type Browser } from '../helpers/browser.ts';
import { startFakeRateSources } from '../fakes/rates/server.ts';

// The customer sees the price, the exact amount and the locked rate on the checkout page.
let browser: Browser;
let fakes: Awaited<ReturnType<typeof startFakeRateSources>>;
before(async () => {
  fakes = await startFakeRateSources({ coindcx: { 'USDT/INR': '83.75' } });
  // A shopper in India: the quote's time is read in their zone and words.
  browser = await launchBrowser({ timezoneId: 'Asia/Kolkata', locale: 'en-IN' });
});
after(async () => {
  await browser?.close();
  await fakes?.close();
});

test('a USDT intent priced in rupees shows "₹1,999.00 = 23.87 USDT at 83.75 ₹/USDT, valid until 8:02 pm IST" to a payer in India', async (t) => {
  const co = await startCheckoutApp({ pricing: { pairs: { 'USDT/INR': ['coindcx'] }, sources: { coindcx: { baseUrl: fakes.sources.coindcx.url } } } });
  t.after(() => co.close());
  // Created at 14:02 UTC tomorrow: the quote holds the intent's lifetime (30 min), to 14:32.
  const d = new Date(Date.now() + 86_400_000);
  co.clock.advance(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 14, 2) - co.clock.now());
  await co.app.pricing.refresher!.refreshOnce(new AbortController().signal);
  const creds = await co.app.merchants.create({ name: 'Chai Corner' });
  const created = await co.app.intents.create(await co.app.merchants.get(creds.client_id), { price: { amount: 1999, currency: 'INR' }, currency: 'USDT_TRC20', order_id: 'ORD-1999' });

  const page = await browser.newPage();
  t.after(() => page.close());
  const res = await page.goto(`${co.url}/pay/${created.intent_id}`);
  assert.equal(res?.status(), 200);
  assert.equal(((await page.locator('#pay-amount').textContent()) ?? '').trim(), '23.87');
  const quote = page.locator('#quote');
  assert.equal(await quote.isVisible(), true);
  assert.equal(((await quote.textContent()) ?? '').trim(), '₹1,999.00 = 23.87 USDT at 83.75 ₹/USDT, valid until 8:02 pm IST');
  // Without the script (the page as served) the time is UTC, and says so.
  const served = await (await fetch(`${co.url}/pay/${created.intent_id}`)).text();
  assert.match(served, /valid until <time id="quote-until" datetime="[0-9-]+T14:32:00\.\d{3}Z">14:32 UTC<\/time>/);

  // An intent with a plain amount has no quote line.
  const plain = await co.createIntent({ amount: 10, currency: 'USDT_TRC20' });
  await page.goto(plain.pageUrl);
  assert.equal(await page.locator('#quote').count(), 0);
});

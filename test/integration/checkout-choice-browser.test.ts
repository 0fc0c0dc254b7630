// An open intent's checkout in headless Chromium, on a 390×844 phone and a 1280 px screen: the
// choice of method grouped as payers think (UPI; USDT → network; SOL), each with what it costs
// now, big touch targets, no sideways scrolling, no serious or critical axe-core violation; a tap
// shows that method's amount and QR, "Pay another way" goes back, and the other method's amount
// replaces it. Rates come from the rate-source fakes (test/fakes/rates/).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserAndRates, startCheckoutApp } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/console.ts';

const chromiumAndRates = browserAndRates();

for (const size of [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
]) {
  test(`${size.width} px: the customer picks USDT on TRON, goes back and picks SOL instead`, async (t) => {
    const co = await startCheckoutApp({
      pricing: chromiumAndRates.pricing(),
    });
    t.after(() => co.close());
    await co.app.pricing.refresher!.refreshOnce(new AbortController().signal);
    const creds = await co.app.merchants.create({ name: 'Chai Corner' });
    const merchant = await co.app.merchants.get(creds.client_id);
    const created = await co.app.intents.createOpen(merchant, { amount: 1999, methods: ['UPI', 'USDT_TRC20', 'SOL'], order_id: 'ORD-CHOICE' });

    const page = await chromiumAndRates.browser().newPage();
    t.after(() => page.close());
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.setViewportSize(size);
    await page.goto(`${co.url}/pay/${created.intent_id}`);

    const groups = await page.locator('fieldset.choice-group legend').allTextContents();
    assert.deepEqual(
      groups.map((g) => g.replace(/\s+/g, ' ').trim().split(' ')[0]),
      ['UPI', 'USDT', 'SOL'],
    );
    assert.equal((await page.locator('#choice-price').textContent())?.trim(), '₹1,999.00');
    const tron = page.locator('button[value="USDT_TRC20"]');
    assert.match((await tron.textContent())!.replace(/\s+/g, ' '), /TRON \(TRC-20\) about 23\.87 USDT/);
    // Thumb-sized targets, and nothing wider than the screen.
    for (const b of await page.locator('.choice-option').all()) {
      const box = (await b.boundingBox())!;
      assert.ok(box.height >= 48 && box.width >= 200, JSON.stringify(box));
    }
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'no sideways scrolling');

    // The form's post answers with a redirect to the page; on a loaded machine that can take a while.
    await tron.click({ noWaitAfter: true });
    await page.locator('#pay-amount').waitFor({ timeout: 20_000 });
    const usdt = Number((await page.locator('#pay-amount').textContent())!.trim());
    assert.ok(usdt >= 23.87 && usdt < 23.97, String(usdt));
    assert.equal((await page.locator('#method').textContent())?.trim(), 'USDT on TRON (TRC-20)');
    assert.equal(await page.locator('svg.qr').count(), 1);

    await page.locator('#change-method').click({ noWaitAfter: true });
    await page.locator('button[value="SOL"]').waitFor({ timeout: 20_000 });
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations));
    assert.equal(await page.locator('button[value="USDT_TRC20"].current').count(), 1, 'the method chosen is marked');
    await page.locator('button[value="SOL"]').click({ noWaitAfter: true });
    await page.locator('#method', { hasText: 'SOL on Solana' }).waitFor({ timeout: 20_000 });
    assert.equal((await page.locator('#method').textContent())?.trim(), 'SOL on Solana');
    const intent = (await co.app.intents.find(created.intent_id))!;
    assert.equal(intent.method, 'SOL');
    assert.deepEqual(intent.open?.choices.map((c) => c.method), ['USDT_TRC20', 'SOL']);
    const payViolations = await axeViolations(page);
    assert.deepEqual(payViolations, [], JSON.stringify(payViolations));
    assert.deepEqual(problems, []);
  });
}

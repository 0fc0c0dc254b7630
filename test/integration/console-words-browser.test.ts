// The console at a phone's 360×740 in headless Chromium: the section tab bar stays on one line,
// and no list (intents, payments' three tabs, links, merchants, sources) scrolls sideways.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { directSession, startConsoleApp } from '../helpers/console.ts';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('at 360 px the tab bar is one line and every list fits the width', async (t) => {
  const c = await startConsoleApp({ console: { enabled: true, timeZone: 'Asia/Kolkata' } });
  const page = await browser.newPage();
  t.after(async () => {
    await page.close();
    await c.close();
  });
  const { app } = c;
  const creds = await app.merchants.create({ name: 'Chai Corner', webhookUrl: 'https://shop.example/payd/webhook' });
  const merchant = await app.merchants.get(creds.client_id);
  const asked = await app.intents.create(merchant, { amount: 500, currency: 'UPI', order_id: 'ORD-LONG-ORDER-ID-20261128-000042' });
  const row = (await app.intents.find(asked.intent_id))!;
  const now = c.clock.now();
  // One payment of each list: unmatched (₹499, no order asks it exactly), held (to a canceled order), rejected.
  await app.ledger.ingestWith({ method: 'UPI', receiver: row.receiver, amountMinor: 49_900n, txRef: '512345678901', occurredAt: now, observedAt: now, source: 'imap', evidence: { payerName: 'ASHA VERMA', payerVpa: 'asha.verma.long.handle@okaxis' } }, undefined, {});
  const canceled = await app.intents.create(merchant, { amount: 777, currency: 'UPI', order_id: 'ORD-CANCELED' });
  await app.cancels.cancel(canceled.intent_id, { actor: 'cli' });
  const canceledRow = (await app.intents.find(canceled.intent_id))!;
  assert.equal((await app.ledger.ingest({ method: 'UPI', receiver: canceledRow.receiver, amountMinor: canceledRow.payAmountMinor, txRef: '512345678902', occurredAt: now, observedAt: now, source: 'imap' })).kind, 'held');
  await app.db.insertInto('rejections').values({ ref: 'imap:1:42', source: 'imap', method: 'UPI', reason: 'dkim_missing', detail_json: null, raw: null, observed_at: now }).execute();

  const s = await directSession(app, 'Counter phone');
  const [name, value] = s.cookie.split('=') as [string, string];
  await page.context().addCookies([{ name, value, url: `${c.origin}/console` }]);
  await page.setViewportSize({ width: 360, height: 740 });

  for (const path of ['/console', '/console/intents', '/console/payments?view=unmatched', '/console/payments?view=held', '/console/payments?view=rejected', '/console/links', '/console/merchants', '/console/sources']) {
    await page.goto(`${c.origin}${path}`);
    // The assign form open, as the operator sees it after tapping it.
    for (const d of await page.locator('details').all()) await d.evaluate((el) => el.setAttribute('open', ''));
    const layout = await page.evaluate(() => {
      const links = [...document.querySelectorAll('nav[aria-label="Sections"] a')].map((a) => a.getBoundingClientRect());
      return { tops: [...new Set(links.map((r) => Math.round(r.top)))], count: links.length, right: Math.max(...links.map((r) => r.right)), scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth };
    });
    assert.equal(layout.count, 6, `${path}: every section in the tab bar`);
    assert.equal(layout.tops.length, 1, `${path}: the tab bar is one line (rows at ${layout.tops.join(', ')})`);
    assert.ok(layout.right <= layout.width, `${path}: the last tab ends at ${layout.right} px, inside ${layout.width} px`);
    assert.ok(layout.scrollWidth <= layout.width, `${path}: the page is ${layout.scrollWidth} px wide at a ${layout.width} px screen`);
  }
});

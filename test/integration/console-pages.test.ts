// Every console page in headless Chromium at 360 px and 1280 px, light and dark: screenshots
// kept under test/output/console/, no serious or critical axe-core violation, and text from
// merchants, payers and raw mail (with <script> in it) shown as text, never run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { axeViolations, passkeyPage, registerWithInvite, startConsoleApp } from '../helpers/console.ts';

const OUT = fileURLToPath(new URL('../output/console/', import.meta.url));
const SCRIPT = (who: string) => `<script>window.__pwned='${who}'</script><img src=x onerror="window.__pwned='${who}-img'">`;

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
  mkdirSync(OUT, { recursive: true });
});
after(async () => {
  await browser?.close();
});

test('every page: screenshots at 360 and 1280 px in light and dark, no serious axe violation, injected markup inert', async (t) => {
  const c = await startConsoleApp();
  const { page, problems } = await passkeyPage(browser);
  const dialogs: string[] = [];
  page.on('dialog', (d) => dialogs.push(d.message()));
  t.after(async () => {
    await page.close();
    await c.close();
  });
  const { app } = c;
  const creds = await app.merchants.create({ name: `Chai ${SCRIPT('merchant')} Corner`, webhookUrl: 'https://shop.example/payd/webhook' });
  const merchant = await app.merchants.get(creds.client_id);
  const hostile = await app.intents.create(merchant, { amount: 250, currency: 'UPI', order_id: SCRIPT('order') });
  for (let i = 0; i < 30; i++) await app.intents.create(merchant, { amount: 100 + i, currency: i % 3 === 0 ? 'USDT_TRC20' : 'UPI', order_id: `ORD-${1000 + i}` });
  const row = (await app.intents.find(hostile.intent_id))!;
  const now = c.clock.now();
  // A transfer no intent asked for, from a payer whose name is markup.
  await app.ledger.ingestWith(
    { method: 'UPI', receiver: row.receiver, amountMinor: 1n, txRef: `UTR${now}`, occurredAt: now, observedAt: now, source: 'imap', evidence: { payerName: SCRIPT('payer'), payerVpa: 'asha@upi' } },
    undefined,
    {},
  );
  // A settled one (Today's takings), and a rejected mail whose raw bytes hold HTML.
  await app.ledger.ingestWith({ method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef: `UTR${now + 1}`, occurredAt: now, observedAt: now, source: 'manual' }, undefined, { intentId: row.id });
  const raw = `From: alerts@bank.example\r\nSubject: Credit\r\nContent-Type: text/html\r\n\r\n<html><body>${SCRIPT('mail')}<p>Rs 500 credited</p></body></html>\r\n`;
  await app.db.insertInto('rejections').values({ ref: 'imap:1:42', source: 'imap', method: 'UPI', reason: 'dkim_missing', detail_json: JSON.stringify({ from: 'alerts@bank.example' }), raw: new Uint8Array(Buffer.from(raw)), observed_at: now }).execute();

  // A payment to a canceled intent: held for a decision (the Held tab and the intent's page show it).
  const canceled = await app.intents.create(merchant, { amount: 777, currency: 'UPI', order_id: 'ORD-CANCELED' });
  await app.cancels.cancel(canceled.intent_id, { actor: 'cli' });
  const canceledRow = (await app.intents.find(canceled.intent_id))!;
  const held = await app.ledger.ingest({ method: 'UPI', receiver: canceledRow.receiver, amountMinor: canceledRow.payAmountMinor, txRef: `UTR${now + 2}`, occurredAt: now, observedAt: now, source: 'imap' });
  assert.equal(held.kind, 'held');
  // A USDT intent priced in USD (1:1 by the peg), paid after its quote expired: held as quote_expired.
  const priced = await app.intents.create(merchant, { price: { amount: 10, currency: 'USD' }, currency: 'USDT_TRC20', order_id: 'ORD-QUOTE' });
  const pricedRow = (await app.intents.find(priced.intent_id))!;
  const afterQuote = pricedRow.pricing!.validUntil + 60_000;
  const lateQuote = await app.ledger.ingest({ method: 'USDT_TRC20', receiver: pricedRow.receiver, amountMinor: pricedRow.payAmountMinor, txRef: `trc20-${now}`, occurredAt: afterQuote, observedAt: afterQuote, source: 'trongrid' });
  assert.deepEqual([lateQuote.kind, lateQuote.kind === 'held' && lateQuote.reason], ['held', 'quote_expired']);

  // Payment links: one whose title is markup, with a customer's choice on it; a counter QR, turned off.
  const link = await app.links.create(creds.client_id, { title: SCRIPT('link'), price: { amount: '499', currency: 'INR' } }, 'cli');
  await app.links.choose(new URL(link.url).pathname.split('/').pop()!, { method: 'UPI' });
  const counter = await app.links.create(creds.client_id, { title: 'Counter', customerAmount: { min: '10', max: '5000', currency: 'INR' }, singleUse: true }, 'cli');
  await app.links.deactivate(counter.link_id, { actor: 'cli' });

  const invite = await app.consoleAccess.invite("Asha's phone");
  const inviteUrl = `${c.origin}/console/invite/${invite.token}`;
  const anonymous = [
    ['sign-in', `${c.origin}/console/sign-in`],
    ['invite', inviteUrl],
  ] as const;
  const signedIn = [
    ['today', `${c.origin}/console`],
    ['intents', `${c.origin}/console/intents`],
    ['intents-filtered', `${c.origin}/console/intents?status=pending&method=UPI`],
    ['intent', `${c.origin}/console/intents/${hostile.intent_id}`],
    ['intent-held', `${c.origin}/console/intents/${canceled.intent_id}`],
    ['payments-unmatched', `${c.origin}/console/payments`],
    ['payments-held', `${c.origin}/console/payments?view=held`],
    ['payments-rejected', `${c.origin}/console/payments?view=rejected`],
    ['rejected-mail', `${c.origin}/console/payments/rejected?ref=imap%3A1%3A42`],
    ['links', `${c.origin}/console/links`],
    ['link', `${c.origin}/console/links/${link.link_id}`],
    ['merchants', `${c.origin}/console/merchants`],
    ['sources', `${c.origin}/console/sources`],
  ] as const;

  const failures: string[] = [];
  const visit = async (name: string, url: string) => {
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: width === 360 ? 740 : 900 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const res = await page.goto(url);
        assert.equal(res?.status(), 200, `${name}: ${res?.status()}`);
        await page.screenshot({ path: `${OUT}${name}-${width}-${scheme}.png`, fullPage: true });
        // axe once per width and once per scheme (it is slow on a loaded machine): 360 dark, 1280 light.
        if ((width === 360) === (scheme === 'dark')) for (const v of await axeViolations(page)) failures.push(`${name} ${width}px ${scheme}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`);
        // Nothing injected ran, and nothing is wider than the screen.
        assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined, name);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${name} at ${width}px scrolls sideways by ${overflow}px`);
      }
    }
  };
  for (const [name, url] of anonymous) await visit(name, url);
  await page.emulateMedia({ colorScheme: 'light' });
  await registerWithInvite(page, inviteUrl);
  for (const [name, url] of signedIn) await visit(name, url);

  // The injected text is on the pages as text.
  await page.goto(`${c.origin}/console/intents/${hostile.intent_id}`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Intent ${SCRIPT('order')}`);
  await page.goto(`${c.origin}/console/payments`);
  assert.equal(await page.locator('.payer').first().textContent(), `${SCRIPT('payer')} · asha@upi`);
  await page.goto(`${c.origin}/console/payments/rejected?ref=imap%3A1%3A42`);
  assert.equal((await page.locator('#raw-message').textContent())?.replace(/\r/g, ''), raw.replace(/\r/g, ''));
  assert.equal(await page.locator('img[src="x"]').count(), 0);
  // The Held tab says what a held payment means to the shopkeeper, and what to do.
  await page.goto(`${c.origin}/console/payments?view=held`);
  const heldTab = (await page.locator('main').textContent()) ?? '';
  assert.match(heldTab, /paid after the price quote expired: the rate has changed; accept at today's rate or refund/);
  assert.match(heldTab, /arrived after the intent was canceled/);
  await page.goto(`${c.origin}/console/links/${link.link_id}`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Link ${SCRIPT('link')}`);
  // The QR the page shows is loaded (same origin, under the console's CSP) and drawn.
  assert.equal(await page.locator('.qr img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), true);
  await page.goto(`${c.origin}/console/merchants`);
  assert.match((await page.locator('main').textContent()) ?? '', /Chai <script>window.__pwned='merchant'<\/script>/);

  // A new merchant's secret is shown once, on the page that answers the form.
  await page.getByLabel('Name').fill('Dosa Point');
  await page.getByRole('button', { name: 'Create merchant' }).click();
  await page.getByText('Copy these now').waitFor();
  const secret = (await page.locator('.secret').nth(2).textContent()) ?? '';
  assert.match(secret, /^sk_test_/);
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: `${OUT}merchant-created-${width}-light.png`, fullPage: true });
  }
  for (const v of await axeViolations(page)) failures.push(`merchant-created: ${v.impact} ${v.id} at ${v.nodes.join(', ')}`);
  await page.goto(`${c.origin}/console/merchants`);
  assert.ok(!((await page.content()).includes(secret)), 'the secret is shown once only');

  assert.deepEqual(failures, []);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, []);
});

// The operator console end to end in headless Chromium with a virtual passkey authenticator:
// invite → register → resolve held payments → replay → sign out → sign in; revoked sessions and
// missing CSRF tokens refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { passkeyPage, registerWithInvite, signInWithPasskey, startConsoleApp, type ConsoleApp } from '../helpers/console.ts';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** A merchant with a webhook URL nobody answers, a settled intent whose webhook failed, and a pending one. */
async function shop(c: ConsoleApp) {
  const { app } = c;
  const creds = await app.merchants.create({ name: 'Chai Corner', webhookUrl: 'http://127.0.0.1:9/payd' });
  const merchant = await app.merchants.get(creds.client_id);
  const settled = await app.intents.create(merchant, { amount: 1234567.5, currency: 'UPI', order_id: 'ORD-SETTLED' });
  const pending = await app.intents.create(merchant, { amount: 99, currency: 'UPI', order_id: 'ORD-PENDING' });
  const row = (await app.intents.find(settled.intent_id))!;
  const now = c.clock.now();
  await app.ledger.ingestWith({ method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef: `UTR${now}`, occurredAt: now, observedAt: now, source: 'manual' }, undefined, { intentId: row.id });
  const event = await app.db.selectFrom('events').select('id').where('intent_id', '=', row.id).where('type', '=', 'payment.success').executeTakeFirstOrThrow();
  // One real attempt against the closed port, then the schedule ran out: the webhook failed.
  await app.dispatcher.deliverNow(event.id);
  await app.db.updateTable('events').set({ status: 'failed' }).where('id', '=', event.id).execute();
  return { merchant, settledId: settled.intent_id, pendingId: pending.intent_id, eventId: event.id };
}

/** An intent canceled (from the CLI), then paid in full: the payment is held for a decision. */
async function heldPayment(c: ConsoleApp, merchant: Awaited<ReturnType<ConsoleApp['app']['merchants']['get']>>, order: string, amount: number, txRef: string) {
  const { app } = c;
  const created = await app.intents.create(merchant, { amount, currency: 'UPI', order_id: order });
  await app.cancels.cancel(created.intent_id, { actor: 'cli' });
  const row = (await app.intents.find(created.intent_id))!;
  const now = c.clock.now();
  const outcome = await app.ledger.ingest({ method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef, occurredAt: now, observedAt: now, source: 'imap' });
  assert.equal(outcome.kind, 'held');
  return created.intent_id;
}

const paymentStatus = (c: ConsoleApp, txRef: string) => c.app.db.selectFrom('payments').select('status').where('tx_ref', '=', txRef).executeTakeFirstOrThrow().then((r) => r.status);

const audit = (c: ConsoleApp, action: string) => c.app.db.selectFrom('audit_log').selectAll().where('action', '=', action).orderBy('id').execute();

test('invite → register a passkey → accept a held payment, mark another refunded → replay a failed webhook → cancel → sign out → sign in with the passkey; the invite works once', async (t) => {
  const c = await startConsoleApp();
  const { page, problems } = await passkeyPage(browser);
  t.after(async () => {
    await page.close();
    await c.close();
  });
  const s = await shop(c);
  const acceptId = await heldPayment(c, s.merchant, 'ORD-HELD-ACCEPT', 310, '655555555551');
  const refundId = await heldPayment(c, s.merchant, 'ORD-HELD-REFUND', 420, '655555555552');
  const invite = await c.app.consoleAccess.invite("Asha's phone");
  const link = `${c.origin}/console/invite/${invite.token}`;

  // Signed out, the console sends the browser to the sign-in page.
  await page.goto(`${c.origin}/console/intents`);
  assert.match(page.url(), /\/console\/sign-in$/);

  await registerWithInvite(page, link);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Today');
  // The 7-day takings in Indian grouping (₹12,34,567.50 plus the intent's small offset).
  assert.match((await page.locator('main').textContent()) ?? '', /₹12,34,5\d\d\.\d\d/);

  // Today counts the held payments; its link opens the Held tab, where one is accepted.
  const waiting = page.getByRole('link', { name: /held payments waiting for a decision/ });
  assert.equal((await waiting.locator('.n').textContent())?.trim(), '2');
  await waiting.click();
  assert.match(page.url(), /\/console\/payments\?view=held$/);
  const heldRowOf = (tx: string) => page.locator('li.row', { hasText: tx });
  assert.match((await heldRowOf('655555555551').textContent()) ?? '', /Order ORD-HELD-ACCEPT[\s\S]*paid ₹310\.\d\d[\s\S]*asked ₹310\.\d\d[\s\S]*canceled[\s\S]*received \d{1,2} [A-Z][a-z]{2}( \d{4})?, \d{1,2}:\d\d [ap]m/);
  await heldRowOf('655555555551').getByRole('button', { name: 'Accept' }).click();
  await page.getByText('Held payment accepted').waitFor();
  assert.match(page.url(), /\/console\/payments\?view=held&done=accepted$/);
  assert.equal(await heldRowOf('655555555551').count(), 0);
  assert.equal((await c.app.intents.find(acceptId))!.status, 'settled');
  assert.equal(await paymentStatus(c, '655555555551'), 'matched');
  assert.deepEqual((await audit(c, 'payment.accept')).map((r) => r.actor), ["console:Asha's phone"]);

  // The other from its intent's page: marked refunded (payd moves no money; the merchant is told).
  await heldRowOf('655555555552').getByRole('link', { name: 'ORD-HELD-REFUND' }).click();
  assert.match(page.url(), new RegExp(`/console/intents/${refundId}$`));
  await page.getByRole('heading', { name: 'Held: waiting for a decision' }).waitFor();
  await page.getByRole('button', { name: 'Mark refunded' }).click();
  await page.getByText('Payment marked refunded').waitFor();
  assert.match(page.url(), new RegExp(`/console/intents/${refundId}\\?done=refunded$`));
  assert.equal(await page.getByRole('button', { name: 'Mark refunded' }).count(), 0);
  assert.equal(await paymentStatus(c, '655555555552'), 'refunded');
  assert.deepEqual((await audit(c, 'payment.refunded')).map((r) => r.actor), ["console:Asha's phone"]);
  const refundedEvents = await c.app.db.selectFrom('events').select('type').where('intent_id', '=', refundId).where('type', '=', 'payment.refunded').execute();
  assert.equal(refundedEvents.length, 1);
  await page.goto(`${c.origin}/console`);
  assert.equal((await waiting.locator('.n').textContent())?.trim(), '0');

  // Find the intent by its order id and replay its failed webhook.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Intents' }).click();
  await page.getByLabel('Intent id or order id').fill('ORD-SETTLED');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: /ORD-SETTLED/ }).click();
  assert.match(page.url(), new RegExp(`/console/intents/${s.settledId}$`));
  assert.match((await page.locator('.attempts').textContent()) ?? '', /#1 .*no answer/);
  await page.getByRole('button', { name: 'Replay webhook' }).click();
  await page.getByText('Webhook queued for delivery again.').waitFor();
  const event = await c.app.db.selectFrom('events').select(['status']).where('id', '=', s.eventId).executeTakeFirstOrThrow();
  assert.equal(event.status, 'pending');
  const replays = await audit(c, 'webhooks.replay');
  assert.deepEqual(replays.map((r) => [r.actor, r.subject]), [["console:Asha's phone", s.eventId]]);

  // Cancel the pending intent from its page: one service call, audited with the passkey's name.
  await page.goto(`${c.origin}/console/intents/${s.pendingId}`);
  await page.getByRole('button', { name: 'Cancel intent' }).click();
  await page.getByText('Intent canceled').waitFor();
  assert.equal((await c.app.intents.find(s.pendingId))!.status, 'canceled');
  assert.deepEqual((await audit(c, 'intent.cancel')).map((r) => r.actor), ['cli', 'cli', "console:Asha's phone"]);

  // Sign out: the session ends on the server too.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/console\/sign-in$/);
  const sessions = await c.app.consoleAccess.sessions();
  assert.deepEqual(sessions.map((x) => [x.passkey, x.state]), [["Asha's phone", 'revoked']]);
  await page.goto(`${c.origin}/console`);
  assert.match(page.url(), /\/console\/sign-in$/);

  // The passkey signs in again; the invite link does not work twice.
  await signInWithPasskey(page, c.origin);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Today');
  assert.deepEqual(problems, []);
  await page.goto(link);
  assert.match((await page.getByRole('alert').first().textContent()) ?? '', /used, expired or unknown/);
});

test('a revoked session is refused at its next request, pages and changes alike', async (t) => {
  const c = await startConsoleApp();
  const { page } = await passkeyPage(browser);
  t.after(async () => {
    await page.close();
    await c.close();
  });
  const s = await shop(c);
  await registerWithInvite(page, `${c.origin}/console/invite/${(await c.app.consoleAccess.invite('Front desk tablet')).token}`);
  await page.goto(`${c.origin}/console/intents/${s.pendingId}`);
  const csrf = await page.locator('input[name="csrf"]').first().inputValue();

  const [session] = await c.app.consoleAccess.sessions();
  assert.equal(session.state, 'active');
  await c.app.consoleAccess.revoke(session.session_id);

  const res = await page.request.post(`${c.origin}/console/intents/${s.pendingId}/cancel`, { form: { csrf }, maxRedirects: 0 });
  assert.equal(res.status(), 403);
  assert.equal((await c.app.intents.find(s.pendingId))!.status, 'pending');
  await page.goto(`${c.origin}/console/intents/${s.pendingId}`);
  assert.match(page.url(), /\/console\/sign-in$/);
});

test('a change without the session’s CSRF token is refused; with it, it is made', async (t) => {
  const c = await startConsoleApp();
  const { page } = await passkeyPage(browser);
  t.after(async () => {
    await page.close();
    await c.close();
  });
  const s = await shop(c);
  await registerWithInvite(page, `${c.origin}/console/invite/${(await c.app.consoleAccess.invite("Asha's phone")).token}`);
  await page.goto(`${c.origin}/console/intents/${s.pendingId}`);
  const csrf = await page.locator('input[name="csrf"]').first().inputValue();
  const cancel = `${c.origin}/console/intents/${s.pendingId}/cancel`;

  // The browser's session cookie rides along (page.request shares the context's cookies).
  for (const form of [{} as Record<string, string>, { csrf: 'x'.repeat(csrf.length) }]) {
    const res = await page.request.post(cancel, { form, maxRedirects: 0 });
    assert.equal(res.status(), 403, JSON.stringify(form));
    assert.match(await res.text(), /security token is missing or stale/);
  }
  // From another site (an Origin that is not the console's), even with the token.
  const cross = await page.request.post(cancel, { form: { csrf }, headers: { origin: 'https://evil.example' }, maxRedirects: 0 });
  assert.equal(cross.status(), 403);
  assert.equal((await c.app.intents.find(s.pendingId))!.status, 'pending');
  assert.deepEqual(await audit(c, 'intent.cancel'), []);

  const ok = await page.request.post(cancel, { form: { csrf }, maxRedirects: 0 });
  assert.equal(ok.status(), 303);
  assert.equal((await c.app.intents.find(s.pendingId))!.status, 'canceled');
});

test('session cookie: HttpOnly, SameSite=Strict, scoped to /console; Secure only behind TLS', async (t) => {
  const c = await startConsoleApp();
  const { page } = await passkeyPage(browser);
  t.after(async () => {
    await page.close();
    await c.close();
  });
  const seen: string[] = [];
  page.on('response', async (r) => {
    if (r.url().endsWith('/console/webauthn/register')) seen.push((await r.headerValue('set-cookie')) ?? '');
  });
  await registerWithInvite(page, `${c.origin}/console/invite/${(await c.app.consoleAccess.invite('Phone')).token}`);
  assert.equal(seen.length, 1);
  assert.match(seen[0], /^payd_console=[A-Za-z0-9_-]{40,}; Path=\/console; HttpOnly; SameSite=Strict$/);
  const cookies = await page.context().cookies(`${c.origin}/console`);
  assert.deepEqual(cookies.map((k) => [k.name, k.httpOnly, k.sameSite, k.secure]), [['payd_console', true, 'Strict', false]]);
  // Behind a trusted proxy that says the browser came over HTTPS, the cookie is Secure too.
  const behind = await startConsoleApp({ trustedProxies: ['127.0.0.1'] });
  t.after(() => behind.close());
  const tls = await browser.newPage();
  t.after(() => tls.close());
  const cdp = await tls.context().newCDPSession(tls);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
  await tls.setExtraHTTPHeaders({ 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' });
  const secureSeen: string[] = [];
  tls.on('response', async (r) => {
    if (r.url().endsWith('/console/webauthn/register')) secureSeen.push((await r.headerValue('set-cookie')) ?? '');
  });
  await registerWithInvite(tls, `${behind.origin}/console/invite/${(await behind.app.consoleAccess.invite('Behind TLS')).token}`);
  assert.match(secureSeen[0] ?? '', /; HttpOnly; SameSite=Strict; Secure$/);
  assert.equal((await behind.app.consoleAccess.sessions())[0].address, '203.0.113.7');

  // The API's merchant credentials are no way in.
  const creds = await c.app.merchants.create({ name: 'Other shop' });
  const res = await fetch(`${c.origin.replace('localhost', '127.0.0.1')}/console`, { headers: { 'x-client-id': creds.client_id, 'x-client-secret': creds.client_secret }, redirect: 'manual' });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/console/sign-in');
});

test('an invite opened at 127.0.0.1 while passkeys belong to localhost says which address to open, and that address works', async (t) => {
  const c: ConsoleApp = await startConsoleApp();
  t.after(() => c.close());
  const { page } = await passkeyPage(browser);
  t.after(() => page.close());
  const invite = await c.app.consoleAccess.invite('Laptop');
  const port = new URL(c.origin).port;
  const wrong = `http://127.0.0.1:${port}/console/invite/${invite.token}`;
  const res = await page.goto(wrong);
  assert.equal(res?.status(), 421);
  const right = `${c.origin}/console/invite/${invite.token}`;
  assert.equal(await page.locator('#console-address').getAttribute('href'), right);
  assert.match(await page.locator('main, body').first().innerText(), /Passkeys for this console belong to localhost:\d+, so this browser cannot use one at 127\.0\.0\.1:\d+/);
  await page.locator('#console-address').click();
  await page.waitForURL(right);
  assert.equal(await page.locator('#console-address').count(), 0, 'the invite page itself, at the address that works');
});

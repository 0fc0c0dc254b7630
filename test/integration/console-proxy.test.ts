// The operator console behind the shipped nginx site (config/nginx-payd.conf), as docs/console.md
// says to run it: HTTPS on the public name, a passkey bound to that name, the session cookie
// Secure, a change (accepting a held payment) passing the console's origin check through the proxy.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { launchBrowser } from '../helpers/browser.ts';
import { passkeyPage, registerWithInvite, signInWithPasskey, startConsoleApp } from '../helpers/console.ts';
import { freePort, startNginx } from '../helpers/nginx.ts';

test('through nginx over HTTPS: invite → passkey on the public name → accept a held payment → sign out → sign in; the session cookie is Secure', async (t) => {
  const tlsPort = await freePort();
  const origin = `https://pay.example.test:${tlsPort}`;
  const c = await startConsoleApp({ publicUrl: origin, trustedProxies: ['127.0.0.1/32'] });
  t.after(() => c.close());
  assert.equal(c.origin, origin);
  const { certFile } = await startNginx(t, Number(new URL(c.app.url!).port), { tlsPort });
  // The browser trusts exactly nginx's test certificate (a passkey needs a page without certificate errors) and resolves the name to loopback.
  const spki = createHash('sha256').update(new X509Certificate(readFileSync(certFile)).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
  const browser = await launchBrowser({ args: [`--host-resolver-rules=MAP pay.example.test 127.0.0.1`, `--ignore-certificate-errors-spki-list=${spki}`] });
  t.after(() => browser.close());
  const { page, problems } = await passkeyPage(browser);

  const creds = await c.app.merchants.create({ name: 'Chai Corner' });
  const merchant = await c.app.merchants.get(creds.client_id);
  const created = await c.app.intents.create(merchant, { amount: 310, currency: 'UPI', order_id: 'ORD-PROXY' });
  await c.app.cancels.cancel(created.intent_id, { actor: 'cli' });
  const row = (await c.app.intents.find(created.intent_id))!;
  const now = c.clock.now();
  assert.equal((await c.app.ledger.ingest({ method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef: '655555555561', occurredAt: now, observedAt: now, source: 'imap' })).kind, 'held');

  const invite = await c.app.consoleAccess.invite("Asha's phone");
  await registerWithInvite(page, `${origin}/console/invite/${invite.token}`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Today');
  const cookies = await page.context().cookies(`${origin}/console`);
  assert.ok(cookies.length > 0 && cookies.every((k) => k.secure && k.httpOnly && k.sameSite === 'Strict'), JSON.stringify(cookies));

  await page.goto(`${origin}/console/payments?view=held`);
  await page.locator('li.row', { hasText: '655555555561' }).getByRole('button', { name: 'Accept' }).click();
  await page.getByText('Held payment accepted').waitFor();
  assert.equal((await c.app.intents.find(created.intent_id))!.status, 'settled');
  assert.deepEqual((await c.app.consoleAccess.sessions()).map((s) => s.passkey), ["Asha's phone"]);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/console\/sign-in$/);
  await signInWithPasskey(page, origin);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Today');
  assert.deepEqual(problems, []);
});

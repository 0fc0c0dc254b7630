// The console's changes over plain HTTP, each the CLI's service call with the passkey's name in
// the audit log: assign an unmatched payment, merchant create / rotate / webhook / revoke.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { directSession, startConsoleApp } from '../helpers/console.ts';

test('assign an unmatched payment, and every merchant action: done, audited as console:<passkey>', async (t) => {
  const c = await startConsoleApp();
  t.after(() => c.close());
  const { app } = c;
  const s = await directSession(app, 'Counter phone');
  const base = c.origin.replace('localhost', '127.0.0.1');
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: s.csrf, ...fields }).toString() });

  const creds = await app.merchants.create({ name: 'Chai Corner' });
  const merchant = await app.merchants.get(creds.client_id);
  const intent = await app.intents.create(merchant, { amount: 500, currency: 'UPI', order_id: 'ORD-ASSIGN' });
  const row = (await app.intents.find(intent.intent_id))!;
  // A transfer to the shop's receiver that matched nothing (₹123.45: no intent asked for it; one
  // paisa short would now be held for the intent under the short-payment tolerance).
  const now = c.clock.now();
  await app.ledger.ingestWith({ method: 'UPI', receiver: row.receiver, amountMinor: 12_345n, txRef: '512345678901', occurredAt: now, observedAt: now, source: 'imap' }, undefined, {});
  const unmatched = await app.db.selectFrom('payments').select(['status', 'tx_ref']).executeTakeFirstOrThrow();
  assert.equal(unmatched.status, 'unmatched');
  const page = await (await fetch(`${base}/console/payments`, { headers: { cookie: s.cookie } })).text();
  assert.match(page, /512345678901/);

  // ₹123.45 for a ₹500 intent: a confirm step first (test/integration/manual-settle-difference.test.ts), then settled.
  const asked = await post('/console/payments/assign', { tx_ref: unmatched.tx_ref, intent_id: intent.intent_id, note: 'customer sent the wrong amount' });
  assert.equal(asked.status, 200);
  assert.match(await asked.text(), /less than/);
  const assigned = await post('/console/payments/assign', { tx_ref: unmatched.tx_ref, intent_id: intent.intent_id, note: 'customer sent the wrong amount', accept_difference: '1' });
  const body = assigned.status === 303 ? '' : await assigned.text();
  assert.equal(assigned.status, 303, body);
  assert.equal(assigned.headers.get('location'), `/console/intents/${intent.intent_id}?done=assigned`);
  assert.equal((await app.intents.find(intent.intent_id))!.status, 'settled');

  const created = await post('/console/merchants', { name: 'Dosa Point', webhook_url: '' });
  assert.equal(created.status, 200);
  const html = await created.text();
  const clientId = /client_id<\/dt><dd><span class="mono secret">([0-9a-f-]{36})</.exec(html)?.[1];
  assert.ok(clientId, 'the new client id is on the page');
  assert.match(html, /sk_test_[A-Za-z0-9_-]+/);
  const rotated = await post(`/console/merchants/${clientId}/rotate`, {});
  assert.equal(rotated.status, 200);
  assert.match(await rotated.text(), /Old secret works until/);
  assert.equal((await post(`/console/merchants/${clientId}/webhook`, { url: 'https://shop.example/hook' })).status, 303);
  assert.equal((await app.merchants.get(clientId!)).webhookUrl, 'https://shop.example/hook');
  assert.equal((await post(`/console/merchants/${clientId}/revoke`, {})).status, 303);
  assert.equal((await app.merchants.get(clientId!)).status, 'revoked');

  // A service refusal is a page saying why, and changes nothing.
  const again = await post('/console/payments/assign', { tx_ref: unmatched.tx_ref, intent_id: intent.intent_id, accept_difference: '1' });
  assert.equal(again.status, 409);
  assert.match(await again.text(), /Order ORD-ASSIGN is already paid/);

  const audit = await app.db.selectFrom('audit_log').select(['actor', 'action']).where('actor', 'like', 'console:%').orderBy('id').execute();
  assert.deepEqual(
    audit.map((a) => `${a.actor} ${a.action}`),
    ['console:Counter phone payment.link', 'console:Counter phone intent.settle', 'console:Counter phone merchant.create', 'console:Counter phone merchant.rotate-secret', 'console:Counter phone merchant.set-webhook', 'console:Counter phone merchant.revoke'],
  );
});

test('a session idle longer than server.console.idleMinutes is signed out; one in use stays', async (t) => {
  const c = await startConsoleApp({ console: { enabled: true, idleMinutes: 5 } });
  t.after(() => c.close());
  const s = await directSession(c.app, 'Phone');
  const base = c.origin.replace('localhost', '127.0.0.1');
  const today = () => fetch(`${base}/console`, { headers: { cookie: s.cookie }, redirect: 'manual' });
  assert.equal((await today()).status, 200);
  c.clock.advance(4 * 60_000);
  assert.equal((await today()).status, 200, 'used within the idle time');
  c.clock.advance(4 * 60_000);
  assert.equal((await today()).status, 200, 'the last request counted as use');
  c.clock.advance(5 * 60_000 + 1000);
  const idle = await today();
  assert.equal(idle.status, 303);
  assert.equal(idle.headers.get('location'), '/console/sign-in');
  assert.deepEqual((await c.app.consoleAccess.sessions()).map((x) => x.state), ['idle']);
});

test('held payments: accept and mark refunded need the CSRF token; a refusal is a page saying why; each audited as console:<passkey>', async (t) => {
  const c = await startConsoleApp();
  t.after(() => c.close());
  const { app } = c;
  const s = await directSession(app, 'Counter phone');
  const base = c.origin.replace('localhost', '127.0.0.1');
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const merchant = await app.merchants.get((await app.merchants.create({ name: 'Chai Corner' })).client_id);
  const intent = await app.intents.create(merchant, { amount: 640, currency: 'UPI', order_id: 'ORD-HELD' });
  await app.cancels.cancel(intent.intent_id, { actor: 'cli' });
  const row = (await app.intents.find(intent.intent_id))!;
  const now = c.clock.now();
  assert.equal((await app.ledger.ingest({ method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef: '566666666666', occurredAt: now, observedAt: now, source: 'imap' })).kind, 'held');
  const status = async () => (await app.db.selectFrom('payments').select('status').where('tx_ref', '=', '566666666666').executeTakeFirstOrThrow()).status;
  const accept = `/console/intents/${intent.intent_id}/payments/accept`;

  for (const fields of [{ tx: '566666666666' }, { tx: '566666666666', csrf: 'x'.repeat(s.csrf.length) }] as Array<Record<string, string>>) assert.equal((await post(accept, fields)).status, 403);
  assert.equal(await status(), 'held');
  const unknown = await post(accept, { csrf: s.csrf, tx: '500000000000' });
  assert.equal(unknown.status, 409);
  assert.match(await unknown.text(), /no payment 500000000000 is attributed/);

  const refunded = await post(`/console/intents/${intent.intent_id}/payments/refunded`, { csrf: s.csrf, tx: '566666666666', back: 'held' });
  assert.equal(refunded.status, 303);
  assert.equal(refunded.headers.get('location'), '/console/payments?view=held&done=refunded');
  assert.equal(await status(), 'refunded');
  // Refunded is final: accepting it now is refused, and the Held tab no longer lists it.
  const late = await post(accept, { csrf: s.csrf, tx: '566666666666' });
  assert.equal(late.status, 409);
  assert.match(await late.text(), /marked refunded/);
  const tab = await (await fetch(`${base}/console/payments?view=held&done=refunded`, { headers: { cookie: s.cookie } })).text();
  assert.match(tab, /Payment marked refunded/);
  assert.doesNotMatch(tab, /566666666666/);
  const audit = await app.db.selectFrom('audit_log').select(['actor', 'action']).where('actor', 'like', 'console:%').orderBy('id').execute();
  assert.deepEqual(audit.map((a) => `${a.actor} ${a.action}`), ['console:Counter phone payment.refunded']);
});

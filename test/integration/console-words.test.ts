// The console in a shopkeeper's words, over HTTP on SQLite and PostgreSQL: times in the shop's
// time zone (server.console.timeZone), reasons in words instead of codes, held and unmatched
// rows with the order id and the amount asked beside the amount paid, and the assign form that
// suggests orders near the amount, finds one by its order id, and keeps what was typed on a mistake.
import { get as httpGet } from 'node:http';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { directSession, startConsoleApp } from '../helpers/console.ts';
import { forEachStore } from '../helpers/stores.ts';
import { parseConfig } from '../../src/methods/load-config.ts';
import { builtinMethods } from '../../src/methods/registry.ts';

/** 07:48 UTC: 1:18 pm in Kolkata (UTC+5:30, no daylight saving). */
const SEEN = Date.parse('2026-11-28T07:48:00Z');
const SEEN_IN_KOLKATA = /28 Nov( 2026)?, 1:18 pm/;

forEachStore((store) => {
  test(`${store.kind}: times, reasons and orders in words; assign suggests, finds by order id, keeps the form on a mistake`, async (t) => {
    const c = await startConsoleApp({ console: { enabled: true, timeZone: 'Asia/Kolkata' } }, await store.config());
    t.after(() => c.close());
    const { app } = c;
    const s = await directSession(app, 'Counter phone');
    const base = c.origin.replace('localhost', '127.0.0.1');
    const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { cookie: s.cookie } })).text();
    const post = (fields: Record<string, string>) =>
      fetch(`${base}/console/payments/assign`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: s.csrf, ...fields }).toString() });

    // The orders are placed ten minutes before the payment is seen (SEEN): only orders older than a payment are suggested for it.
    c.clock.advance(SEEN - 10 * 60_000 - c.clock.now());
    const creds = await app.merchants.create({ name: 'Chai Corner' });
    const merchant = await app.merchants.get(creds.client_id);
    const near = await app.intents.create(merchant, { amount: 500, currency: 'UPI', order_id: 'ORD-NEAR' });
    const far = await app.intents.create(merchant, { amount: 900, currency: 'UPI', order_id: 'ORD-FAR' });
    const paid = await app.intents.create(merchant, { amount: 300, currency: 'UPI', order_id: 'ORD-PAID' });
    const nearRow = (await app.intents.find(near.intent_id))!;
    const paidRow = (await app.intents.find(paid.intent_id))!;
    const now = c.clock.now();
    await app.ledger.ingestWith({ method: 'UPI', receiver: paidRow.receiver, amountMinor: paidRow.payAmountMinor, txRef: '500000000001', occurredAt: now, observedAt: now, source: 'manual' }, undefined, { intentId: paidRow.id });
    // ₹495.00 at 07:48 UTC: no order asks it; ORD-NEAR (₹500.xx) is within a tenth, ORD-FAR is not.
    await app.ledger.ingestWith({ method: 'UPI', receiver: nearRow.receiver, amountMinor: 49_500n, txRef: '512345678901', occurredAt: SEEN, observedAt: SEEN, source: 'imap' }, undefined, {});
    // A payment to a canceled order: held for a decision.
    const canceled = await app.intents.create(merchant, { amount: 777, currency: 'UPI', order_id: 'ORD-CANCELED' });
    await app.cancels.cancel(canceled.intent_id, { actor: 'cli' });
    const canceledRow = (await app.intents.find(canceled.intent_id))!;
    assert.equal((await app.ledger.ingest({ method: 'UPI', receiver: canceledRow.receiver, amountMinor: canceledRow.payAmountMinor, txRef: '512345678902', occurredAt: now, observedAt: now, source: 'imap' })).kind, 'held');
    await app.db.insertInto('rejections').values({ ref: 'imap:1:42', source: 'imap', method: 'UPI', reason: 'dkim_missing', detail_json: null, raw: null, observed_at: SEEN }).execute();

    const unmatched = await get('/console/payments?view=unmatched');
    assert.match(unmatched, SEEN_IN_KOLKATA, 'the payment was received at 1:18 pm in the shop');
    assert.doesNotMatch(unmatched, /\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/, 'no raw ISO time');
    assert.match(unmatched, /no order for this amount/);
    assert.doesNotMatch(unmatched, /no_matching_intent/);
    assert.match(unmatched, /paid ₹495\.00/);
    assert.match(unmatched, new RegExp(`Order ORD-NEAR asks ${money(nearRow.payAmountMinor)}`), 'the suggested order and what it asks');
    assert.match(unmatched, new RegExp(`value="${near.intent_id}"`), 'ORD-NEAR can be picked');
    assert.doesNotMatch(unmatched, /ORD-FAR/, 'an order far from the amount is not suggested');

    const held = await get('/console/payments?view=held');
    assert.match(held, /Order <a href="\/console\/intents\/[^"]+">ORD-CANCELED<\/a>/, 'the order id, opening its page');
    assert.match(held, new RegExp(`paid ${money(canceledRow.payAmountMinor)}`));
    assert.match(held, new RegExp(`asked ${money(canceledRow.payAmountMinor)}`));
    assert.match(held, /arrived after the intent was canceled/);
    assert.doesNotMatch(held, />canceled</, 'the reason code is not shown as a badge');

    const rejected = await get('/console/payments?view=rejected');
    assert.match(rejected, /not signed by the bank: possibly forged/);
    assert.doesNotMatch(rejected, /dkim_missing/);
    assert.match(rejected, SEEN_IN_KOLKATA);
    assert.match(await get('/console/payments/rejected?ref=imap%3A1%3A42'), SEEN_IN_KOLKATA);

    // Mistakes: the form comes back as typed, saying what was wrong, and nothing is settled.
    const unknown = await post({ tx_ref: '512345678901', order: 'ORD-NOPE', note: 'customer phoned' });
    assert.equal(unknown.status, 404);
    const unknownPage = await unknown.text();
    assert.match(unknownPage, /No order ORD-NOPE/);
    assert.match(unknownPage, /name="order" value="ORD-NOPE"/);
    assert.match(unknownPage, /name="note" maxlength="200" value="customer phoned"/);
    assert.match(unknownPage, /<details open>/);
    assert.match(unknownPage, /Order ORD-NEAR asks/, 'the suggestions stay');
    const already = await post({ tx_ref: '512345678901', order: 'ORD-PAID' });
    assert.equal(already.status, 409);
    assert.match(await already.text(), /Order ORD-PAID is already paid/);
    const none = await post({ tx_ref: '512345678901', order: '' });
    assert.equal(none.status, 400);
    assert.match(await none.text(), /Pick one of the suggested orders, or type the order id/);
    assert.equal((await app.intents.find(near.intent_id))!.status, 'pending');
    assert.equal((await app.db.selectFrom('payments').select('status').where('tx_ref', '=', '512345678901').executeTakeFirstOrThrow()).status, 'unmatched');

    // Found by the amount it asks (no order has that id): ₹500 is ORD-NEAR's; nobody asks ₹123.
    const byAmount = await post({ tx_ref: '512345678901', order: '₹500' });
    assert.equal(byAmount.status, 200);
    assert.match(await byAmount.text(), /intent <span class="mono">[^<]+<\/span> \(order ORD-NEAR\)/);
    const noAmount = await post({ tx_ref: '512345678901', order: '123' });
    assert.equal(noAmount.status, 404);
    assert.match(await noAmount.text(), /No open or expired order asks ₹123\.00/);

    // Found by its order id: ₹495.00 for ORD-NEAR asks to confirm the difference, then settles.
    const byOrder = await post({ tx_ref: '512345678901', order: 'ORD-NEAR' });
    assert.equal(byOrder.status, 200);
    assert.match(await byOrder.text(), /less than/);
    const settled = await post({ tx_ref: '512345678901', intent_id: near.intent_id, accept_difference: '1' });
    assert.equal(settled.status, 303);
    assert.equal((await app.intents.find(near.intent_id))!.status, 'settled');
    assert.equal((await app.intents.find(far.intent_id))!.status, 'pending');
  });
});

test("the sandbox's Sources page shows its simulated sources and rates, not an empty lag list", async (t) => {
  const c = await startConsoleApp();
  t.after(() => c.close());
  const s = await directSession(c.app, 'Laptop');
  const page = await (await fetch(`${c.origin.replace('localhost', '127.0.0.1')}/console/sources`, { headers: { cookie: s.cookie } })).text();
  assert.match(page, /Sandbox: nothing here watches a bank mailbox or a chain/);
  assert.match(page, /npx payd sandbox pay &lt;intent_id&gt;/);
  for (const method of builtinMethods.list) assert.match(page, new RegExp(`<span>${method.id}</span>`), `${method.id} is listed as simulated`);
  assert.match(page, /USDT\/INR<\/span><span class="amount">85\.5<\/span>[\s\S]*?simulated/, 'the simulated rate a priced USDT intent uses');
  assert.doesNotMatch(page, /No payment method configured/);
});

test("the sandbox's sign-in page says how to get in: the --sandbox invite command", async (t) => {
  const c = await startConsoleApp();
  t.after(() => c.close());
  // At its own host name (fetch cannot set Host; "localhost" may resolve to ::1 first).
  const signIn = await new Promise<string>((resolve, reject) => {
    httpGet({ host: '127.0.0.1', port: new URL(c.origin).port, path: '/console/sign-in', headers: { host: new URL(c.origin).host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d)).on('end', () => resolve(body));
    }).on('error', reject);
  });
  assert.match(signIn, /<code id="sandbox-invite">npx payd --sandbox console invite --name "my laptop"<\/code>/);
});

test('server.console.timeZone must be an IANA zone name: a clear error at config load', () => {
  assert.throws(() => parseConfig({ server: { console: { enabled: true, timeZone: 'India/Mumbai' } } }, '/tmp'), /timeZone[\s\S]*IANA time zone name such as "Asia\/Kolkata"/);
  assert.doesNotThrow(() => parseConfig({ server: { console: { enabled: true, timeZone: 'Asia/Kolkata' } } }, '/tmp'));
});

/** ₹ with two decimals, as the console shows rupees (amounts here are under ₹1,000: no grouping). */
function money(minor: bigint): string {
  return `₹${minor / 100n}\\.${(minor % 100n).toString().padStart(2, '0')}`;
}

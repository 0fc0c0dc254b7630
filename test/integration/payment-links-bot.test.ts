// The shopkeeper's phone: /link in the Telegram bot (a fake Bot API speaking the documented
// shapes, test/fakes/telegram.ts) makes a payment link and answers with its URL and its QR code as
// a photo, for listed actors only; a counter QR paid by a customer is told as "Paid ₹… at the counter".
// Both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OWNER_CHAT, SHOP_CHAT, startNotifyingPayd, upiPayment } from '../helpers/notify.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

forEachStore((store) => {
  test('/link 499 Blue saree answers with the URL and the QR code; only an actor may create links', async (t) => {
    // The shop chat's user is not an actor here: only the owner may create links.
    const { p, tg, m } = await startNotifyingPayd(t, { store, notify: { email: null, telegram: { actors: [String(OWNER_CHAT)] } } });

    tg.message(SHOP_CHAT, '/link 499 Blue saree', 'asha');
    await waitFor(async () => tg.sent.some((s) => s.chat_id === String(SHOP_CHAT)), 10_000, 'the refusal');
    assert.match(tg.sent.find((s) => s.chat_id === String(SHOP_CHAT))!.text, /You may not create links: ask the operator to add your Telegram user id \(1001\)/);
    assert.equal((await p.api('GET', '/api/v1/payment-links', { headers: m.headers })).body.data.length, 0, 'nothing was created');

    tg.message(OWNER_CHAT, '/link 499 Blue saree', 'owner');
    await waitFor(async () => tg.photos.length >= 1, 10_000, 'the QR photo');
    const [photo] = tg.photos;
    assert.equal(photo!.chat_id, String(OWNER_CHAT));
    const url = /https:\/\/pay\.example\.com\/l\/\w+/.exec(photo!.caption)?.[0];
    assert.ok(url, photo!.caption);
    assert.match(photo!.caption, /^Blue saree: ₹499\r?\n/);
    assert.deepEqual([...photo!.photo.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
    const links = (await p.api('GET', '/api/v1/payment-links', { headers: m.headers })).body.data;
    assert.deepEqual(links.map((l: any) => [l.title, l.url, l.price]), [['Blue saree', url, { amount: 499, currency: 'INR' }]]);

    tg.message(OWNER_CHAT, '/link lots of sarees', 'owner');
    await waitFor(async () => tg.sent.some((s) => s.chat_id === String(OWNER_CHAT) && s.text.startsWith('Usage: /link')), 10_000, 'the usage');
  });

  test('a counter QR paid by a customer: the shopkeeper is told "Paid ₹… at the counter"', async (t) => {
    const { p, tg, m } = await startNotifyingPayd(t, { store, notify: { email: null } });
    tg.message(OWNER_CHAT, '/link 10-5000 counter', 'owner');
    await waitFor(async () => tg.photos.length >= 1, 10_000, 'the QR photo');
    const url = new URL(/https:\/\/pay\.example\.com\/l\/\w+/.exec(tg.photos[0]!.caption)![0]);
    assert.match(tg.photos[0]!.caption, /^counter: the customer types ₹10 to ₹5000\r?\n/);

    // The customer scans, types 450, picks UPI.
    const res = await fetch(p.url + url.pathname, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'amount=450&currency=UPI' });
    assert.equal(res.status, 303);
    const intentId = res.headers.get('location')!.slice('/pay/'.length);
    const intent = (await p.api('GET', `/api/v1/intents/${intentId}`, { headers: m.headers })).body;
    const payMinor = BigInt(Math.round(intent.pay_amount * 100));
    assert.equal((await p.app.ledger.ingest(upiPayment(p, payMinor, '412345678901'))).kind, 'settled');
    const paid = `₹450.${String(payMinor % 100n).padStart(2, '0')}`;
    await waitFor(async () => tg.sent.some((s) => s.chat_id === String(OWNER_CHAT) && s.text.startsWith('Paid ₹')), 10_000, 'the sale to be told');
    assert.equal(tg.sent.find((s) => s.chat_id === String(OWNER_CHAT) && s.text.startsWith('Paid ₹'))!.text, `Paid ${paid} at the counter (order ${url.pathname.slice(3)}-1). Ref 412345678901.`);
  });
});

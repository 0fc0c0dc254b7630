// The console's Links page over plain HTTP: create a link through its form, see it listed with its
// QR code, its payments (the intents customers created), deactivate and activate it; each change
// one call into the links service, audited as console:<passkey>. Both stores (the link's intents
// are read by link_id).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { directSession, startConsoleApp } from '../helpers/console.ts';
import { forEachStore } from '../helpers/stores.ts';

forEachStore((store) => {
  test('a link created on the Links page is listed with its QR, shows its payments, and is deactivated and activated there', async (t) => {
    const c = await startConsoleApp({}, await store.config());
    t.after(() => c.close());
    const { app } = c;
    const s = await directSession(app, 'Counter phone');
    const base = c.origin.replace('localhost', '127.0.0.1');
    const get = (path: string) => fetch(`${base}${path}`, { headers: { cookie: s.cookie } });
    const post = (path: string, fields: Record<string, string>) =>
      fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: s.csrf, ...fields }).toString() });

    // No merchant yet: the page says to create one instead of offering a form that cannot work.
    const empty = await (await get('/console/links')).text();
    assert.match(empty, /No payment link yet/);
    assert.match(empty, /Create a merchant first/);
    assert.match(empty, /<a href="\/console\/links" aria-current="page">Links<\/a>/, 'the tab bar has Links, current');

    await app.merchants.create({ name: 'Saree House' }, 'cli');
    const form = await (await get('/console/links')).text();
    assert.match(form, /action="\/console\/links"/);
    assert.doesNotMatch(form, /name="merchant"/, 'one active merchant: the link is its, nothing to pick');

    // A fixed price, single use.
    const created = await post('/console/links', { title: 'Blue saree', currency: 'INR', price: '499', min: '', max: '', single_use: '1' });
    assert.equal(created.status, 303, created.status === 303 ? '' : await created.text());
    const location = created.headers.get('location')!;
    const linkId = /^\/console\/links\/([0-9a-f-]{36})\?done=link-created$/.exec(location)?.[1];
    assert.ok(linkId, location);
    const [link] = await app.links.list();
    assert.equal(link!.link_id, linkId);
    assert.equal(link!.single_use, true);
    const slug = new URL(link!.url).pathname.split('/').pop()!;

    const detail = await (await get(location)).text();
    assert.match(detail, /Payment link created/);
    assert.match(detail, /Blue saree/);
    assert.match(detail, /<dt>Price<\/dt><dd>499 INR<\/dd>/);
    assert.match(detail, /b-active/);
    assert.ok(detail.includes(`<img src="/l/${slug}/qr.svg"`), 'the QR is shown');
    assert.ok(detail.includes(`href="/l/${slug}/qr.png" download=`), 'with a download of the PNG');
    assert.match(detail, /No customer has chosen a way to pay yet/);
    // The QR the page points at is served (same origin, as the console's CSP requires).
    const svg = await fetch(`${base}/l/${slug}/qr.svg`);
    assert.equal(svg.status, 200);
    assert.match(svg.headers.get('content-type') ?? '', /image\/svg\+xml/);
    assert.match(await svg.text(), /<svg/);
    const png = await fetch(`${base}/l/${slug}/qr.png`);
    assert.equal(png.status, 200);
    assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

    // A customer-entered amount (a counter QR).
    const counter = await post('/console/links', { title: 'Counter', currency: 'INR', price: '', min: '10', max: '5000' });
    assert.equal(counter.status, 303);
    const list = await (await get('/console/links')).text();
    assert.match(list, /Blue saree/);
    assert.match(list, /10–5000 INR, the customer enters it/);
    assert.ok(list.includes(link!.url), 'the link URL is listed');
    assert.equal((list.match(/>Deactivate</g) ?? []).length, 2);

    // A customer chooses on the public page: the intent appears under the link with its order id, amount and status.
    const intent = await app.links.choose(slug, { method: 'UPI' });
    const withPayment = await (await get(`/console/links/${linkId}`)).text();
    assert.ok(withPayment.includes(`href="/console/intents/${intent.intent_id}"`));
    assert.ok(withPayment.includes(`${slug}-1`), 'the order id the link numbered');
    assert.match(withPayment, /₹499\.\d\d/);
    assert.match(withPayment, /b-pending/);

    // Bad input: a clear page, nothing created.
    const both = await post('/console/links', { title: 'Both', currency: 'INR', price: '10', min: '1', max: '20' });
    assert.equal(both.status, 400);
    assert.match(await both.text(), /either a fixed price or a minimum and maximum/);
    const negative = await post('/console/links', { title: 'Bad', currency: 'INR', price: '-5' });
    assert.equal(negative.status, 400);
    assert.match(await negative.text(), /price\.amount: must be a plain decimal/);
    const reversed = await post('/console/links', { title: 'Reversed', currency: 'INR', min: '500', max: '10' });
    assert.equal(reversed.status, 400);
    assert.equal((await app.links.list()).length, 2);

    // Deactivate: the console says so, the public page says so in plain words; activate again.
    const off = await post(`/console/links/${linkId}/deactivate`, {});
    assert.equal(off.status, 303);
    assert.equal(off.headers.get('location'), `/console/links/${linkId}?done=link-deactivated`);
    const offPage = await (await get(off.headers.get('location')!)).text();
    assert.match(offPage, /<span class="badge b-inactive">deactivated<\/span>/);
    assert.match(offPage, />Activate</);
    assert.match(await (await fetch(`${base}/l/${slug}`)).text(), /turned off by the shop/);
    const on = await post(`/console/links/${linkId}/activate`, {});
    assert.equal(on.status, 303);
    assert.equal((await app.links.get(linkId!)).status, 'active');

    // A change without the session's CSRF token changes nothing.
    const forged = await fetch(`${base}/console/links/${linkId}/deactivate`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=wrong' });
    assert.equal(forged.status, 403);
    assert.equal((await app.links.get(linkId!)).status, 'active');

    const audit = await app.db.selectFrom('audit_log').select(['actor', 'action']).where('actor', 'like', 'console:%').orderBy('id').execute();
    assert.deepEqual(
      audit.map((a) => `${a.actor} ${a.action}`),
      ['console:Counter phone link.create', 'console:Counter phone link.create', 'console:Counter phone link.deactivate', 'console:Counter phone link.activate'],
    );
  });

  test('with several active merchants the form asks which one the link is for', async (t) => {
    const c = await startConsoleApp({}, await store.config());
    t.after(() => c.close());
    const { app } = c;
    const s = await directSession(app, 'Desk');
    const base = c.origin.replace('localhost', '127.0.0.1');
    await app.merchants.create({ name: 'Shop A' }, 'cli');
    const b = await app.merchants.create({ name: 'Shop B' }, 'cli');
    const page = await (await fetch(`${base}/console/links`, { headers: { cookie: s.cookie } })).text();
    assert.match(page, /<select name="merchant" required>/);
    const created = await fetch(`${base}/console/links`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: s.csrf, merchant: b.client_id, title: 'Tuition', currency: 'INR', price: '1500' }).toString() });
    assert.equal(created.status, 303);
    const [link] = await app.links.list({ merchantId: b.client_id });
    assert.equal(link!.title, 'Tuition');
  });
});

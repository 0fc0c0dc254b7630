// The checkout's public status endpoint, websocket and response headers, over real sockets.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'undici';
import { createApp } from '../../src/app/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { systemRandom } from '../../src/system.ts';
import { startCheckoutApp, type CheckoutApp } from '../helpers/browser.ts';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'";

async function appFor(t: TestContext): Promise<CheckoutApp> {
  const co = await startCheckoutApp();
  t.after(() => co.close());
  return co;
}

interface Watch {
  messages: Array<Record<string, unknown>>;
  /** Resolves with the next message not yet taken, or rejects after timeoutMs. */
  next(timeoutMs: number): Promise<Record<string, unknown>>;
  closed: Promise<number>;
  opened: Promise<boolean>;
}

function watch(t: TestContext, url: string): Watch {
  const ws = new WebSocket(url);
  t.after(() => ws.close());
  const messages: Array<Record<string, unknown>> = [];
  let taken = 0;
  let wake: (() => void) | null = null;
  ws.addEventListener('message', (e) => {
    messages.push(JSON.parse(String(e.data)));
    wake?.();
  });
  const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)));
  const opened = new Promise<boolean>((resolve) => {
    ws.addEventListener('open', () => resolve(true));
    ws.addEventListener('close', () => resolve(false));
  });
  return {
    messages,
    closed,
    opened,
    async next(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= messages.length) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no websocket message within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
      return messages[taken++];
    },
  };
}

const wsUrl = (co: CheckoutApp, id: string) => `${co.url.replace(/^http/, 'ws')}/pay/${id}/ws`;

test('the page, its 404 and its status JSON carry the security headers; the HTML has no inline script or style', async (t) => {
  const co = await appFor(t);
  const { id, pageUrl } = await co.createIntent();
  for (const [url, status, type] of [
    [pageUrl, 200, 'text/html; charset=utf-8'],
    [`${co.url}/pay/${randomUUID()}`, 404, 'text/html; charset=utf-8'],
    [`${co.url}/pay/${id}/status`, 200, 'application/json; charset=utf-8'],
  ] as const) {
    const res = await fetch(url);
    assert.equal(res.status, status, url);
    assert.equal(res.headers.get('content-type'), type);
    assert.ok(res.headers.get('content-security-policy')?.startsWith(CSP), url);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    await res.arrayBuffer();
  }
  const page = await (await fetch(pageUrl)).text();
  const scripts = page.match(/<script\b[^>]*>/g) ?? [];
  assert.ok(scripts.length > 0);
  for (const tag of scripts) assert.match(tag, /\ssrc="\/pay\/assets\/checkout\.js\?v=[0-9a-f]+"/);
  assert.doesNotMatch(page, /<style|\sstyle=|\son[a-z]+=/i);
  assert.match(page, /<svg class="qr"/);

  const js = await fetch(`${co.url}${page.match(/src="([^"]+)"/)![1]}`);
  assert.equal(js.status, 200);
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(js.headers.get('x-content-type-options'), 'nosniff');
  assert.match(await js.text(), /new WebSocket/);
  const css = await fetch(`${co.url}/pay/assets/checkout.css`);
  assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  assert.match(await css.text(), /@media/);
  assert.equal((await fetch(`${co.url}/pay/assets/other.js`)).status, 404);
});

test('the status endpoint tells only this intent\'s state, and after settlement where to return', async (t) => {
  const co = await appFor(t);
  const { id } = await co.createIntent({ orderId: 'ORD 7/ü', returnUrl: 'https://shop.example/done?cart=9' });
  const before = await (await fetch(`${co.url}/pay/${id}/status`)).json();
  // `payments`: only how many payments the intent shows, never their amounts.
  assert.deepEqual(Object.keys(before).sort(), ['expires_at', 'intent_id', 'now', 'payments', 'redirect_url', 'status', 'transaction_hash']);
  assert.equal(before.payments, 0);
  assert.equal(before.transaction_hash, null, 'no reference before payment');
  assert.equal(before.intent_id, id);
  assert.equal(before.status, 'pending');
  assert.equal(before.redirect_url, null, 'no redirect target before payment');

  await co.settle(id);
  const after = await (await fetch(`${co.url}/pay/${id.toUpperCase()}/status`)).json();
  assert.equal(after.status, 'settled');
  const back = new URL(after.redirect_url);
  assert.equal(back.origin + back.pathname, 'https://shop.example/done');
  assert.equal(back.searchParams.get('cart'), '9');
  assert.equal(back.searchParams.get('intent_id'), id);
  assert.equal(back.searchParams.get('order_id'), 'ORD 7/ü');

  for (const bad of [randomUUID(), 'nope', `${id}x`]) {
    const res = await fetch(`${co.url}/pay/${bad}/status`);
    assert.equal(res.status, 404, bad);
    assert.equal((await res.json()).code, 'INTENT_NOT_FOUND');
  }
});

test('a websocket reports only the intent it was opened for, and closes once that intent is settled', async (t) => {
  const co = await appFor(t);
  const a = await co.createIntent();
  const b = await co.createIntent();
  const socket = watch(t, wsUrl(co, a.id));
  const first = await socket.next(2_000);
  assert.equal(first.intent_id, a.id);
  assert.equal(first.status, 'pending');

  await co.settle(b.id);
  await new Promise((r) => setTimeout(r, 1_000)); // more than two polls
  assert.equal(socket.messages.length, 1, 'another intent\'s settlement is not reported');

  const settledAt = Date.now();
  await co.settle(a.id);
  const update = await socket.next(1_000);
  assert.ok(Date.now() - settledAt < 1_000);
  assert.equal(update.intent_id, a.id);
  assert.equal(update.status, 'settled');
  assert.equal(await socket.closed, 1000);
  assert.deepEqual(new Set(socket.messages.map((m) => m.intent_id)), new Set([a.id]));
});

test('a settlement written by another process on the same database reaches the websocket', async (t) => {
  const co = await appFor(t);
  const { id } = await co.createIntent();
  const socket = watch(t, wsUrl(co, id));
  assert.equal((await socket.next(2_000)).status, 'pending');

  // A second app on the same files stands in for the CLI: no in-process notification can help.
  const cli = await createApp({ config: co.app.config, sandbox: true, clock: co.clock, random: systemRandom, log: silentLogger() });
  t.after(() => cli.close());
  const row = (await cli.intents.find(id))!;
  const now = Date.now();
  await cli.ledger.ingestWith(
    { method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef: 'UTR-CLI-1', occurredAt: now, observedAt: now, source: 'manual' },
    undefined,
    { intentId: id },
  );
  const update = await socket.next(1_000);
  assert.equal(update.status, 'settled');
});

test('a websocket for an unknown or malformed intent is refused', async (t) => {
  const co = await appFor(t);
  for (const id of [randomUUID(), 'not-a-uuid']) {
    const socket = watch(t, wsUrl(co, id));
    assert.equal(await socket.opened, false, id);
    assert.deepEqual(socket.messages, []);
  }
  const other = watch(t, `${co.url.replace(/^http/, 'ws')}/api/v1/intents`);
  assert.equal(await other.opened, false);
});

// Anonymous traffic (wrong secrets, the checkout page, its websocket) is limited per IP and
// capped, over a real server on 127.0.0.1; a valid merchant keeps getting answers meanwhile.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { WebSocket } from 'undici';
import { startPayd, testClock, type PaydHarness, type TestClock } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

async function daemon(t: TestContext, server: Record<string, unknown> = {}, clock?: TestClock): Promise<PaydHarness> {
  // The shipped default: 50 per second, burst 100.
  const p = await startPayd({ clock, config: { server: { publicRateLimit: { perSecond: 50, burst: 100 }, ...server } } });
  t.after(() => p.close());
  return p;
}

async function newIntent(p: PaydHarness, headers: Record<string, string>, orderId: string): Promise<string> {
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 100, currency: 'UPI', order_id: orderId }, headers });
  assert.equal(r.status, 200, r.text);
  return r.body.intent_id;
}

/** Sends `n` requests, `parallel` at a time, while a valid merchant fetches its intent; returns both tallies. */
async function flood(p: PaydHarness, n: number, bad: () => Promise<Response>, good: () => Promise<number>) {
  const statuses = new Map<number, number>();
  let retryAfter = 0;
  const goodStatuses: number[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < n) {
      sent++;
      const res = await bad();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 429) retryAfter = Number(res.headers.get('retry-after'));
      await res.arrayBuffer();
    }
  };
  const merchant = async () => {
    // Interleaved with the flood until it is over (bounded: at most 200 fetches).
    for (let i = 0; i < 200 && sent < n; i++) goodStatuses.push(await good());
  };
  await Promise.all([...Array.from({ length: 20 }, worker), merchant()]);
  return { statuses, retryAfter, goodStatuses };
}

// The app's clock stands still during a flood, so the count does not depend on how fast this
// machine sends: exactly the burst gets through, and refill follows the clock.
test('500 wrong-secret requests from one IP meet 429 RATE_LIMITED while a valid merchant still gets 200s', async (t) => {
  const clock = testClock();
  const p = await daemon(t, {}, clock);
  const m = await p.merchant();
  const id = await newIntent(p, m.headers, 'ORD-1');
  const wrong = { 'x-client-id': m.clientId, 'x-client-secret': m.secret + 'x' };
  const r = await flood(
    p,
    500,
    () => fetch(`${p.url}/api/v1/intents/${id}`, { headers: wrong }),
    async () => (await p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers })).status,
  );
  assert.deepEqual(Object.fromEntries(r.statuses), { 403: 100, 429: 400 }, 'the burst of 100 is answered, the rest refused');
  assert.equal(r.retryAfter, 1, 'Retry-After says how long to wait');
  assert.ok(r.goodStatuses.length > 0);
  assert.deepEqual([...new Set(r.goodStatuses)], [200], 'the valid merchant is never limited by the flood');
  // One second later, 50 more tokens.
  clock.advance(1000);
  const after = [];
  for (let i = 0; i < 51; i++) after.push((await fetch(`${p.url}/api/v1/intents/${id}`, { headers: wrong })).status);
  assert.deepEqual([after.filter((s) => s === 403).length, after.at(-1)], [50, 429]);
});

test('500 checkout page requests from one IP meet 429 while a valid merchant still gets 200s', async (t) => {
  const p = await daemon(t, {}, testClock());
  const m = await p.merchant();
  const id = await newIntent(p, m.headers, 'ORD-1');
  const r = await flood(
    p,
    500,
    () => fetch(`${p.url}/pay/${id}`),
    async () => (await p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers })).status,
  );
  assert.deepEqual(Object.fromEntries(r.statuses), { 200: 100, 429: 400 });
  assert.equal(r.retryAfter, 1);
  assert.deepEqual([...new Set(r.goodStatuses)], [200]);
});

test('missing headers, unknown routes, the status JSON and the websocket share one bucket per IP', async (t) => {
  const p = await daemon(t, { publicRateLimit: { perSecond: 1, burst: 4 } }, testClock());
  const m = await p.merchant();
  const id = await newIntent(p, m.headers, 'ORD-1');
  assert.equal((await p.api('POST', '/api/v1/intents/create-payment', { body: {} })).status, 401);
  assert.equal((await p.api('GET', '/nope')).status, 404);
  assert.equal((await fetch(`${p.url}/pay/${id}/status`)).status, 200);
  assert.equal((await p.api('GET', `/api/v1/intents/${id}`, { headers: { ...m.headers, 'x-client-secret': 'wrong' } })).status, 403);
  // The bucket is empty now.
  const anon = await p.api('POST', '/api/v1/intents/create-payment', { body: {} });
  assert.equal(anon.status, 429);
  assert.equal(anon.body.code, 'RATE_LIMITED');
  assert.ok(Number(anon.headers.get('retry-after')) >= 1);
  assert.equal((await p.api('GET', '/healthz')).status, 429);
  const status = await fetch(`${p.url}/pay/${id}/status`);
  assert.equal(status.status, 429);
  assert.equal((await status.json()).code, 'RATE_LIMITED');
  const socket = new WebSocket(`${p.url.replace(/^http/, 'ws')}/pay/${id}/ws`);
  t.after(() => socket.close());
  const opened = await new Promise<boolean>((resolve) => {
    socket.addEventListener('open', () => resolve(true));
    socket.addEventListener('error', () => resolve(false));
  });
  assert.equal(opened, false, 'the upgrade is refused while the address is over its rate');
  // A valid merchant from the same address is not held back.
  assert.equal((await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 101, currency: 'UPI', order_id: 'ORD-2' }, headers: m.headers })).status, 200);
  assert.equal((await p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers })).status, 200);
});

interface Socket {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  opened: Promise<boolean>;
  closed: Promise<{ code: number; at: number }>;
}

function connect(t: TestContext, p: PaydHarness, id: string): Socket {
  const ws = new WebSocket(`${p.url.replace(/^http/, 'ws')}/pay/${id}/ws`);
  t.after(() => ws.close());
  const messages: Array<Record<string, unknown>> = [];
  ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))));
  const closed = new Promise<{ code: number; at: number }>((resolve) => ws.addEventListener('close', (e) => resolve({ code: e.code, at: Date.now() })));
  const opened = new Promise<boolean>((resolve) => {
    ws.addEventListener('open', () => resolve(true));
    ws.addEventListener('close', () => resolve(false));
  });
  return { ws, messages, opened, closed };
}

test('live-status sockets: one shared watcher per intent, capped per intent and in total', async (t) => {
  const p = await daemon(t, { liveSockets: { perIntent: 3, total: 4 } });
  const m = await p.merchant();
  const a = await newIntent(p, m.headers, 'ORD-A');
  const b = await newIntent(p, m.headers, 'ORD-B');

  const onA = [connect(t, p, a), connect(t, p, a), connect(t, p, a)];
  for (const s of onA) assert.equal(await s.opened, true);
  await waitFor(async () => onA.every((s) => s.messages.length === 1), 3_000, 'every socket on A to get the state');
  assert.deepEqual(p.app.liveSockets(), { sockets: 3, watchers: 1 }, 'three sockets, one reader');

  // A fourth tab on A is refused (the page then polls the status JSON); B still has room.
  const fourth = connect(t, p, a);
  assert.equal(await fourth.opened, false);
  const onB = connect(t, p, b);
  assert.equal(await onB.opened, true);
  await waitFor(async () => onB.messages.length === 1, 3_000, 'the socket on B to get the state');
  assert.deepEqual(p.app.liveSockets(), { sockets: 4, watchers: 2 });
  // The total is reached: another intent's socket is refused too.
  const c = await newIntent(p, m.headers, 'ORD-C');
  assert.equal(await connect(t, p, c).opened, false);

  // Closing frees the slot; the last socket of an intent stops its watcher.
  onB.ws.close();
  await waitFor(async () => p.app.liveSockets().watchers === 1, 3_000, "B's watcher to stop");
  assert.equal(p.app.liveSockets().sockets, 3);
});

test('sockets close shortly after the intent is settled or expired, each after the final state was sent', async (t) => {
  const p = await daemon(t);
  const m = await p.merchant();
  const settled = await newIntent(p, m.headers, 'ORD-S');
  const s1 = connect(t, p, settled);
  const s2 = connect(t, p, settled);
  await waitFor(async () => s1.messages.length === 1 && s2.messages.length === 1, 3_000, 'the pending state');
  const row = (await p.app.intents.find(settled))!;
  const now = Date.now();
  await p.app.ledger.ingestWith(
    { method: 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef: '123456789012', occurredAt: now, observedAt: now, source: 'manual' },
    undefined,
    { intentId: settled },
  );
  for (const s of [s1, s2]) {
    const { code } = await s.closed;
    assert.equal(code, 1000);
    assert.equal(s.messages.at(-1)!.status, 'settled');
  }
  await waitFor(async () => p.app.liveSockets().sockets === 0, 3_000, 'the server to let go of both sockets');
  assert.equal(p.app.liveSockets().watchers, 0);

  // An intent that expired: the expired state is sent, then the socket closes.
  const short = await startPayd({ config: { server: { publicRateLimit: { perSecond: 0, burst: 1 } }, intents: { ttlSeconds: 1 } } });
  t.after(() => short.close());
  const mm = await short.merchant();
  const expiring = await newIntent(short, mm.headers, 'ORD-E');
  const e = connect(t, short, expiring);
  const { code } = await e.closed;
  assert.equal(code, 1000);
  assert.deepEqual(e.messages.map((x) => x.status), ['pending', 'expired']);
});

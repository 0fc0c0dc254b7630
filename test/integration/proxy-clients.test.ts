// payd behind the shipped nginx example (config/nginx-payd.conf): /metrics never answers through
// the proxy whatever the spelling of its path, and per-IP limits count each client behind the
// proxy (server.trustedProxies + X-Forwarded-For), never the proxy itself, and never an address
// a client wrote into X-Forwarded-For on its own.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { test, type TestContext } from 'node:test';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { call, clientAgent, startNginx, type CallOptions } from '../helpers/nginx.ts';

/** A request straight to payd with the path exactly as written (no URL normalisation on our side). */
function direct(p: PaydHarness, path: string, o: { headers?: Record<string, string>; localAddress?: string } = {}) {
  const url = new URL(p.url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers: o.headers, localAddress: o.localAddress }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const looksLikeMetrics = (body: string) => /payd_|# (HELP|TYPE) /.test(body);

// Spellings a router or a proxy may map onto /metrics (h3 maps the first eight to the route).
const VARIANTS = ['/metrics/', '/metrics/.', '/metrics/./', '/./metrics', '/a/../metrics', '/%6detrics', '/%6Detrics', '/metrics?x=1', '//metrics', '/metrics//', '/METRICS', '/metrics%2f', '/metrics;x'];

test('/metrics and every variant of its path answer no metrics through nginx; payd itself answers only the exact path, never a forwarded request', async (t) => {
  const p = await startPayd({ sandbox: true, config: { server: { trustedProxies: ['127.0.0.1'] } } });
  t.after(() => p.close());
  const { tlsPort } = await startNginx(t, Number(new URL(p.url).port));

  for (const path of ['/metrics', ...VARIANTS]) {
    const r = await call(tlsPort, path);
    assert.notEqual(r.status, 200, `${path} through nginx`);
    assert.equal(looksLikeMetrics(r.body), false, `${path} through nginx answered metrics`);
  }

  // payd alone (another proxy may not normalise or block as nginx does): the exact path from loopback only.
  const exact = await direct(p, '/metrics');
  assert.equal(exact.status, 200);
  assert.ok(looksLikeMetrics(exact.body));
  for (const path of VARIANTS.filter((v) => v !== '/metrics?x=1')) {
    const r = await direct(p, path);
    assert.notEqual(r.status, 200, `${path} straight to payd`);
    assert.equal(looksLikeMetrics(r.body), false, `${path} straight to payd answered metrics`);
  }
  assert.equal((await direct(p, '/metrics?x=1')).status, 200, 'a query string is not another path');
  // A request that came through a proxy names the client it was forwarded for: refused even from loopback.
  for (const headers of [{ 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }, { 'x-real-ip': '127.0.0.1' }] as Record<string, string>[]) {
    const r = await direct(p, '/metrics', { headers });
    assert.equal(r.status, 403, JSON.stringify(headers));
    assert.equal(JSON.parse(r.body).code, 'FORBIDDEN');
  }
});

test('server.metrics.listen serves /metrics on its own listener only', async (t) => {
  const p = await startPayd({ config: { server: { metrics: { listen: { host: '127.0.0.1', port: 0 } } } } });
  t.after(() => p.close());
  assert.ok(p.app.metricsUrl, 'the metrics listener is up');
  const own = await fetch(`${p.app.metricsUrl}/metrics`);
  assert.equal(own.status, 200);
  assert.ok(looksLikeMetrics(await own.text()));
  assert.equal((await fetch(`${p.app.metricsUrl}/metrics/`)).status, 404);
  assert.equal((await fetch(`${p.app.metricsUrl}/healthz`)).status, 404, 'nothing but /metrics there');
  const api = await direct(p, '/metrics');
  assert.equal(api.status, 404, 'the API listener has no /metrics then');
  assert.equal(looksLikeMetrics(api.body), false);
});

/** Sends `n` requests from one client, 8 at a time; returns how many got each status. */
async function burst(n: number, send: (i: number) => Promise<{ status: number }>): Promise<Record<number, number>> {
  const tally: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const r = await send(next++);
      tally[r.status] = (tally[r.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return tally;
}

const upgrade = (id: string, o: CallOptions = {}) => ({
  ...o,
  headers: { ...o.headers, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') },
});

async function behindNginx(t: TestContext) {
  // payd's clock stands still, so exactly the burst (100) of each bucket is answered, however fast this machine sends.
  const clock = testClock();
  const p = await startPayd({ clock, config: { server: { trustedProxies: ['127.0.0.1'], publicRateLimit: { perSecond: 50, burst: 100 } } } });
  t.after(() => p.close());
  const { tlsPort } = await startNginx(t, Number(new URL(p.url).port));
  const m = await p.merchant();
  const created = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 499, currency: 'UPI', order_id: 'proxy-limits' } });
  assert.equal(created.status, 200, created.text);
  return { p, m, tlsPort, id: created.body.intent_id as string };
}

test('two clients behind nginx have separate buckets: one flooding the checkout does not make the other\'s checkout, its WebSocket or the API answer 429', async (t) => {
  const { tlsPort, id, m } = await behindNginx(t);
  // Client A (127.0.0.2 as nginx sees it) at full speed: 150 checkout page loads.
  const a = clientAgent('127.0.0.2');
  t.after(() => a.destroy());
  const flood = await burst(150, () => call(tlsPort, `/pay/${id}`, { agent: a }));
  assert.deepEqual(flood, { 200: 100, 429: 50 }, 'A meets its own limit');
  assert.equal((await call(tlsPort, `/pay/${id}/ws`, upgrade(id, { localAddress: '127.0.0.2' }))).status, 429, "A's WebSocket counts in A's bucket");

  // Client B (127.0.0.3) is not slowed by A: its checkout page, its live status and a failed API call.
  const page = await call(tlsPort, `/pay/${id}`, { localAddress: '127.0.0.3' });
  assert.equal(page.status, 200, 'B loads the checkout');
  const ws = await call(tlsPort, `/pay/${id}/ws`, upgrade(id, { localAddress: '127.0.0.3' }));
  assert.equal(ws.status, 101, "B's WebSocket opens");
  assert.equal(JSON.parse(ws.upgraded!).status, 'pending');
  const wrong = await call(tlsPort, `/api/v1/intents/${id}`, { localAddress: '127.0.0.3', headers: { 'x-client-id': m.clientId, 'x-client-secret': 'wrong' } });
  assert.equal(wrong.status, 403, 'B is told its secret is wrong, not to slow down');
});

test('a client cannot pick its bucket by writing X-Forwarded-For: through nginx or straight to payd, its own address is counted', async (t) => {
  const { p, tlsPort, id } = await behindNginx(t);
  // Through nginx: every request claims another address; nginx appends the real one (127.0.0.4).
  const c = clientAgent('127.0.0.4');
  t.after(() => c.destroy());
  const spoofed = await burst(150, (i) => call(tlsPort, `/pay/${id}`, { agent: c, headers: { 'x-forwarded-for': `198.51.100.${i % 250}, 203.0.113.${i % 250}` } }));
  assert.deepEqual(spoofed, { 200: 100, 429: 50 }, 'one bucket for the one client behind nginx');

  // Straight to payd from 127.0.0.5, which is no trusted proxy: its X-Forwarded-For is ignored.
  const straight = await burst(150, (i) => direct(p, `/pay/${id}`, { localAddress: '127.0.0.5', headers: { 'x-forwarded-for': `198.51.100.${i % 250}` } }));
  assert.deepEqual(straight, { 200: 100, 429: 50 }, 'one bucket for the untrusted peer');
  // Another address still has its whole burst.
  assert.equal((await direct(p, `/pay/${id}`, { localAddress: '127.0.0.6' })).status, 200);
});

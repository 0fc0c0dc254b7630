/**
 * Lag through the real daemon: the real TRON and Solana sources against the fakes, an injected
 * clock. A fake whose head stops moving (TronGrid's solidified block, the RPC's slot) while every
 * call still succeeds makes the lag grow; past maxLagSeconds (default 120) /readyz answers 503
 * naming the method ("lagging") and payd_source_lag_seconds shows it; when the head moves again
 * the source catches up and /readyz is 200 again.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { startFakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey } from '../fakes/solana-tx.ts';
import { MERCHANT, startFakeTronGrid } from '../fakes/trongrid.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

const readyz = async (p: PaydHarness) => {
  const res = await fetch(p.url + '/readyz');
  return { status: res.status, body: (await res.json()) as any };
};

const lagMetric = async (p: PaydHarness, method: string): Promise<number | undefined> => {
  const text = await (await fetch(p.url + '/metrics')).text();
  const m = new RegExp(`^payd_source_lag_seconds\\{method="${method}"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

async function payd(t: TestContext, methods: Record<string, unknown>, clock: ReturnType<typeof testClock>) {
  const p = await startPayd({ clock, workers: true, sources: 'configured', config: { methods: { UPI: undefined, USDT_TRC20: undefined, SOL: undefined, USDT_SOL: undefined, ...methods } } });
  t.after(() => p.close());
  return p;
}

/** The head stops; the clock moves past the limit; the method lags (503); the head moves; ready again. */
async function stallAndRecover(p: PaydHarness, clock: ReturnType<typeof testClock>, method: string, freeze: () => void, resume: () => void, headReads: () => number) {
  const ok = await waitFor(async () => {
    const r = await readyz(p);
    return r.status === 200 && r.body.sources[method]?.state === 'ok' && r;
  }, 10_000, `${method} ready`);
  assert.equal(ok.body.sources[method].max_lag_seconds, 120, 'the default limit for a chain');
  assert.ok(ok.body.sources[method].lag_seconds < 5, `caught up: ${ok.body.sources[method].lag_seconds}`);
  const before = (await lagMetric(p, method))!;
  assert.ok(before >= 0 && before < 5, `metric while caught up: ${before}`);

  freeze();
  // Two more head reads: the source has seen the frozen head (a block made just before the freeze is new to it).
  const reads = headReads();
  await waitFor(async () => headReads() >= reads + 2, 5000, 'the frozen head to be read');
  // Calls keep succeeding; only the time moves on. Every completed tick now sees the same head.
  clock.advance(150_000);
  const lagging = await waitFor(async () => {
    const r = await readyz(p);
    return r.body.sources[method]?.state === 'lagging' && r;
  }, 10_000, `${method} to lag`);
  assert.equal(lagging.status, 503);
  assert.deepEqual(lagging.body.failing, [method]);
  assert.ok(lagging.body.sources[method].lag_seconds >= 150, JSON.stringify(lagging.body));
  assert.ok((await lagMetric(p, method))! >= 150);
  // payd doctor (what the leader last recorded) says so in plain words, and fails.
  const red = (await p.app.doctor.run()).find((l) => l.what === `${method} lag`)!;
  assert.equal(red.ok, false, red.message);
  assert.match(red.message, /^\d+ (s|min) behind its upstream \(limit 120 s\): payments made since are not seen yet/);
  // It keeps growing while the head stays where it is.
  clock.advance(60_000);
  await waitFor(async () => (await readyz(p)).body.sources[method]?.lag_seconds >= 210, 10_000, 'the lag to grow with the clock');

  resume();
  const back = await waitFor(async () => {
    const r = await readyz(p);
    return r.status === 200 && r;
  }, 15_000, `${method} to catch up`);
  assert.equal(back.body.sources[method].state, 'ok');
  assert.ok(back.body.sources[method].lag_seconds < 5, JSON.stringify(back.body));
  assert.ok((await lagMetric(p, method))! < 5);
  const green = await waitFor(async () => {
    const l = (await p.app.doctor.run()).find((x) => x.what === `${method} lag`);
    return l?.ok && l;
  }, 15_000, 'doctor to see the source caught up');
  assert.match(green.message, /^\d+ s behind its upstream \(limit 120 s\)$/);
}

test('TRON: TronGrid whose solidified head stops moving → lag grows, /readyz 503 past maxLagSeconds, recovers when it moves', async (t) => {
  const g = await startFakeTronGrid();
  t.after(() => g.close());
  const clock = testClock();
  const p = await payd(t, { USDT_TRC20: { address: MERCHANT, apiUrl: g.url, apiKey: 'test-key', pollSeconds: 0.2 } }, clock);
  const m = await p.merchant();
  // An open intent: the source follows the head on every tick.
  await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 5, currency: 'USDT_TRC20', order_id: 'lag-1' } });
  await stallAndRecover(p, clock, 'USDT_TRC20', () => g.freezeHead(), () => g.resumeHead(), () => g.headRequests);
  assert.ok(g.headRequests > 0);
});

test('Solana: an RPC whose slot stops advancing → lag grows, /readyz 503 past maxLagSeconds, recovers when it advances', async (t) => {
  const r = await startFakeSolanaRpc();
  t.after(() => r.close());
  const clock = testClock();
  const p = await payd(t, { SOL: { wallet: newKey(), rpcUrl: r.url, pollSeconds: 0.2 } }, clock);
  const m = await p.merchant();
  await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 0.5, currency: 'SOL', order_id: 'lag-1' } });
  await stallAndRecover(p, clock, 'SOL', () => r.freezeSlot(), () => r.resumeSlot(), () => r.count('getSlot'));
});

test('a chain source with no open intent makes no call and counts as caught up: hours of clock, no lag alarm', async (t) => {
  const g = await startFakeTronGrid();
  t.after(() => g.close());
  const clock = testClock();
  const p = await payd(t, { USDT_TRC20: { address: MERCHANT, apiUrl: g.url, apiKey: 'test-key', pollSeconds: 0.2 } }, clock);
  await waitFor(async () => (await readyz(p)).status === 200, 10_000, 'ready');
  g.freezeHead();
  const listings = g.requests.length;
  clock.advance(100_000); // under the 5 min idle sweep
  await new Promise((res) => setTimeout(res, 1000));
  const r = await readyz(p);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.sources.USDT_TRC20.lag_seconds < 5);
  assert.equal(g.requests.length, listings, 'no listing while nothing can settle');
});

test('payd doctor: a source that never reached its upstream says so with the cause, not "ok … s behind"', async (t) => {
  // UPI's IMAP server is a closed loopback port: every cycle fails to connect.
  const p = await startPayd({ workers: true, sources: 'configured', config: { methods: { USDT_TRC20: undefined, SOL: undefined, USDT_SOL: undefined } } });
  t.after(() => p.close());
  // The leader records positions every 5 s; a generous bound for a loaded machine.
  const line = await waitFor(async () => {
    const l = (await p.app.doctor.run()).find((x) => x.what === 'UPI lag');
    return l && /never reached/.test(l.message) && l;
  }, 30_000, 'doctor to see the source never reached');
  assert.equal(line.ok, false);
  assert.match(line.message, /^never reached its upstream since payd serve started \d+ s ago \(cannot connect to IMAP server 127\.0\.0\.1:1: connection refused\): payments made since are not seen$/);
  assert.doesNotMatch(line.message, /behind its upstream/);
});

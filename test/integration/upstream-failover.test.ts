/**
 * Several TronGrid endpoints through the real app (workers on, the real TRON source, an injected
 * clock): one endpoint rate-limited with TronGrid's 429 body, the other carries the load and a
 * payment settles promptly; /metrics counts requests and throttled seconds per endpoint (URL
 * without key); with one endpoint down and the other 10 minutes behind, the lag grows against
 * the newest head either showed and /readyz answers 503 "lagging"; doctor names each endpoint;
 * when the trailing endpoint catches up, the method is ready again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CUSTOMER, MERCHANT, RATE_LIMIT_429, STRANGER, startFakeTronGrid } from '../fakes/trongrid.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';
import { stopwatch } from '../helpers/stopwatch.ts';

const readyz = async (p: PaydHarness) => {
  const res = await fetch(p.url + '/readyz');
  return { status: res.status, body: (await res.json()) as any };
};
const metric = async (p: PaydHarness, pattern: RegExp): Promise<number | undefined> => {
  const m = pattern.exec(await (await fetch(p.url + '/metrics')).text());
  return m ? Number(m[1]) : undefined;
};
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

test('TRON with two endpoints: throttled one rests while the other settles the payment; lag, /readyz, /metrics and doctor follow each phase', async (t) => {
  const a = await startFakeTronGrid();
  const b = await startFakeTronGrid();
  t.after(() => Promise.all([a.close(), b.close()]));
  b.transfers = a.transfers;
  a.faultsHitHead = true;
  const clock = testClock();
  const p = await startPayd({
    clock,
    workers: true,
    sources: 'configured',
    config: {
      methods: {
        UPI: undefined,
        SOL: undefined,
        USDT_SOL: undefined,
        // One endpoint's word is enough here (the operator's choice): this is about staying available while A is throttled.
        USDT_TRC20: { address: MERCHANT, pollSeconds: 0.2, endpoints: [{ url: a.url, apiKey: 'key-a-0123456789abcdef' }, { url: b.url, apiKey: 'key-b-0123456789abcdef' }], confirmations: { endpoints: 1 } },
      },
    },
  });
  t.after(() => p.close());
  const m = await p.merchant();
  const created = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 7, currency: 'USDT_TRC20', order_id: 'two-endpoints' } });
  const intent = created.body as { intent_id: string; pay_amount: number };
  await waitFor(async () => (await readyz(p)).body.sources?.USDT_TRC20?.state === 'ok', 10_000, 'USDT_TRC20 ready');

  // Phase 1: A is rate-limited (TronGrid's 429 body, "suspended for 1 s"); the payment settles through B.
  a.faults.push({ status: 429, body: { Error: RATE_LIMIT_429.replace('5 s', '1 s') }, times: 1_000_000 });
  a.add({ value: String(Math.round(intent.pay_amount * 1e6)), block_timestamp: Date.now() - 30_000 });
  const sinceListed = stopwatch();
  await waitFor(async () => ((await p.api('GET', `/api/v1/intents/${intent.intent_id}`, { headers: m.headers })).body as { status: string }).status === 'settled', 15_000, 'settlement through B');
  // Ten 200 ms polls: B serves at once, not after A's one-second suspension or a back-off on it.
  const took = sinceListed.stop();
  assert.ok(took < 2000, `settled ${took.toFixed(0)} ms (this process's running time) after the transfer was listed`);
  const ready = await readyz(p);
  assert.equal(ready.status, 200);
  assert.ok(ready.body.sources.USDT_TRC20.lag_seconds < 5, JSON.stringify(ready.body));
  const throttled = await metric(p, new RegExp(`^payd_upstream_requests_total\\{endpoint="${esc(a.url)}",outcome="throttled"\\} (\\S+)$`, 'm'));
  assert.ok(throttled! >= 1, `A throttled: ${throttled}`);
  assert.ok((await metric(p, new RegExp(`^payd_upstream_throttled_seconds_total\\{endpoint="${esc(a.url)}"\\} (\\S+)$`, 'm')))! >= 1.5);
  assert.ok((await metric(p, new RegExp(`^payd_upstream_requests_total\\{endpoint="${esc(b.url)}",outcome="ok"\\} (\\S+)$`, 'm')))! >= 1);
  const text = await (await fetch(p.url + '/metrics')).text();
  assert.ok(!text.includes('key-a-0123456789abcdef') && !text.includes('key-b-'), 'no key on /metrics');

  // Phase 2: A is down (500s) and B falls 10 minutes behind: calls succeed, but the head B shows is
  // older than what A showed, so the lag grows with the clock past maxLagSeconds (120).
  a.faults.length = 0;
  a.faults.push({ status: 500, times: 1_000_000 });
  b.behindBlocks = 200;
  const reads = b.headRequests;
  await waitFor(async () => b.headRequests >= reads + 3, 5000, 'B read while behind');
  clock.advance(150_000);
  const lagging = await waitFor(async () => {
    const r = await readyz(p);
    return r.body.sources.USDT_TRC20.state === 'lagging' && r;
  }, 10_000, 'USDT_TRC20 to lag');
  assert.equal(lagging.status, 503);
  assert.deepEqual(lagging.body.failing, ['USDT_TRC20']);
  assert.ok((await metric(p, /^payd_source_lag_seconds\{method="USDT_TRC20"\} (\S+)$/m))! >= 150);
  // Doctor: one line per endpoint, by URL; A's says what went wrong.
  const lines = await p.app.doctor.run();
  const lineA = lines.find((l) => l.what === `USDT_TRC20 ${a.url}`);
  const lineB = lines.find((l) => l.what === `USDT_TRC20 ${b.url}`);
  assert.equal(lineA?.ok, false, JSON.stringify(lines));
  assert.match(lineA!.message, /not usable: .*HTTP 500/);
  assert.equal(lineB?.ok, true, JSON.stringify(lines));
  assert.match(lineB!.message, /API key accepted; solidified block \d+/);
  assert.ok(!JSON.stringify(lines).includes('key-a-0123456789abcdef'));

  // Phase 3: B catches up (and the chain has moved on past the payment's block: someone else's
  // transfer in a newer block): ready again, lag back near zero.
  b.behindBlocks = 0;
  a.add({ from: CUSTOMER, to: STRANGER, value: '1000000', block_timestamp: Date.now() - 1000 });
  const back = await waitFor(async () => {
    const r = await readyz(p);
    return r.status === 200 && r;
  }, 10_000, 'USDT_TRC20 to catch up');
  assert.ok(back.body.sources.USDT_TRC20.lag_seconds < 5, JSON.stringify(back.body));
  // The one payment settled once.
  const payments = (await p.app.payments.list({})) as unknown[];
  assert.equal(payments.length, 1);
});

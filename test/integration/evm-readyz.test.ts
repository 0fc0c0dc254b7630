/**
 * The EVM source's health through the real daemon against a real node (anvil), an injected
 * clock: while the chain makes no block the final head stays where it is and the lag grows with
 * the clock (past maxLagSeconds /readyz answers 503 naming the currency, payd_source_lag_seconds
 * shows it); a mined block makes it catch up. The node stopped, /readyz is 503 for the currency
 * and payd_upstream_requests_total counts the endpoint's failures beside its answered requests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MERCHANT, startAnvil } from '../helpers/anvil.ts';
import { startPayd, testClock, type PaydHarness } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

const METHOD = 'USDT_ETH';

const readyz = async (p: PaydHarness) => {
  const res = await fetch(p.url + '/readyz');
  return { status: res.status, body: (await res.json()) as any };
};
const metric = async (p: PaydHarness, name: string, labels: string): Promise<number | undefined> => {
  const text = await (await fetch(p.url + '/metrics')).text();
  const m = new RegExp(`^${name}\\{${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

test('EVM: the lag grows while no block is final, /readyz 503 names the currency past maxLagSeconds and recovers; a stopped node is 503 with its failures counted', async (t) => {
  const node = await startAnvil(1);
  t.after(() => node.stop());
  const token = await node.deployToken('USDT', 6);
  const clock = testClock();
  // The clock moves with real time too (the currencies of a chain share a poll that finished less than half an interval ago), and jumps when the test says.
  const ticking = setInterval(() => clock.advance(100), 100);
  t.after(() => clearInterval(ticking));
  const p = await startPayd({
    clock,
    workers: true,
    sources: 'configured',
    config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: undefined, [METHOD]: { address: MERCHANT, contract: token, rpcUrl: node.url, pollSeconds: 0.2, backfillBlocks: 0 } } },
  });
  t.after(() => p.close());
  const m = await p.merchant();
  // An open intent: the chain is scanned on every poll.
  await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 5, currency: METHOD, order_id: 'lag-1' } });
  const endpoint = `endpoint="${node.url}"`;

  const ok = await waitFor(async () => {
    const r = await readyz(p);
    return r.status === 200 && r.body.sources[METHOD]?.state === 'ok' && r;
  }, 20_000, `${METHOD} ready`);
  assert.equal(ok.body.sources[METHOD].max_lag_seconds, 120, 'the default limit for a chain');
  assert.ok(ok.body.sources[METHOD].lag_seconds < 5, JSON.stringify(ok.body));
  const lag = (await metric(p, 'payd_source_lag_seconds', `method="${METHOD}"`))!;
  assert.ok(lag >= 0 && lag < 5, `lag metric while caught up: ${lag}`);
  // A poll that found the chain idle (before the intent) asked nothing: wait for one that scanned.
  await waitFor(async () => ((await metric(p, 'payd_upstream_requests_total', `${endpoint},outcome="ok"`)) ?? 0) > 0, 20_000, 'answered requests counted per endpoint');

  // No block is made: every poll still succeeds, but the final block stays the one first seen.
  clock.advance(150_000);
  const lagging = await waitFor(async () => {
    const r = await readyz(p);
    return r.body.sources[METHOD]?.state === 'lagging' && r;
  }, 20_000, `${METHOD} to lag`);
  assert.equal(lagging.status, 503);
  assert.deepEqual(lagging.body.failing, [METHOD]);
  assert.ok((await metric(p, 'payd_source_lag_seconds', `method="${METHOD}"`))! >= 150);

  // Blocks again: the scan reaches a new final block and is caught up.
  await node.mine(3);
  const back = await waitFor(async () => {
    const r = await readyz(p);
    return r.status === 200 && r;
  }, 20_000, `${METHOD} to catch up`);
  assert.ok(back.body.sources[METHOD].lag_seconds < 5, JSON.stringify(back.body));

  // The node stops: every call fails; once no poll completed for long, /readyz names the currency.
  await node.stop();
  await waitFor(async () => ((await metric(p, 'payd_upstream_requests_total', `${endpoint},outcome="error"`)) ?? 0) > 0, 20_000, 'a failed request to be counted');
  clock.advance(200_000);
  const down = await waitFor(async () => {
    const r = await readyz(p);
    return r.status === 503 && r;
  }, 20_000, 'readiness to fail with the node stopped');
  assert.deepEqual(down.body.failing, [METHOD]);
  assert.ok(['stale', 'lagging'].includes(down.body.sources[METHOD].state), JSON.stringify(down.body));
  assert.equal((await metric(p, 'payd_source_up', `method="${METHOD}"`)), 0);
});

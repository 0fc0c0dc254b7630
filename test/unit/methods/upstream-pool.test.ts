import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callUrl, redactUrl } from '../../../src/methods/endpoints.ts';
import { createUpstreamPool } from '../../../src/methods/upstream-pool.ts';

const mid = { bytes: (n: number) => new Uint8Array(n), uuid: () => '00000000-0000-4000-8000-000000000000', float: () => 0.5 };

function pool(n = 2, weights: number[] = []) {
  let now = 1_000_000;
  const metrics = { requests: [] as string[], throttled: [] as number[] };
  const p = createUpstreamPool({
    endpoints: Array.from({ length: n }, (_, i) => ({ url: `https://rpc${i}.example/`, weight: weights[i] ?? 1 })),
    clock: { now: () => now },
    random: mid,
    backoff: { baseMs: 1000, maxMs: 8000 },
    behindBy: 20,
    metrics: { upstreamRequest: (e, o) => metrics.requests.push(`${e} ${o}`), upstreamThrottled: (_e, s) => metrics.throttled.push(s) },
  });
  return { p, metrics, advance: (ms: number) => (now += ms), names: () => p.order().map((m) => m.label) };
}

test('calls go to the fastest endpoint; weight divides latency', () => {
  const { p, names } = pool(2, [1, 3]);
  const [a, b] = p.members;
  p.succeeded(a!, 100);
  p.succeeded(b!, 200); // 200 / 3 < 100 / 1
  assert.deepEqual(names(), ['https://rpc1.example', 'https://rpc0.example']);
});

test('a failing endpoint rests for a growing backoff while the other carries the load, then is tried again', () => {
  const { p, names, advance, metrics } = pool();
  const [a] = p.members;
  p.failed(a!, { kind: 'error' }, new Error('HTTP 500'));
  assert.deepEqual(names(), ['https://rpc1.example', 'https://rpc0.example'], 'resting: last');
  assert.equal(a!.health.restUntil - 1_000_000, 1000);
  advance(1000);
  assert.equal(names()[0], 'https://rpc0.example', 'rested: back in front');
  p.failed(a!, { kind: 'error' }, new Error('HTTP 500'));
  assert.equal(a!.health.restUntil - 1_001_000, 2000, 'second failure: twice as long');
  assert.equal(a!.health.lastError, 'HTTP 500');
  p.succeeded(a!, 50);
  assert.equal(a!.health.failures, 0);
  assert.deepEqual(metrics.requests, ['https://rpc0.example error', 'https://rpc0.example error', 'https://rpc0.example ok']);
});

test('a throttled endpoint rests for exactly the time it asked for, counted as throttled seconds', () => {
  const { p, advance, metrics, names } = pool();
  const [a] = p.members;
  p.failed(a!, { kind: 'throttled', retryAfterMs: 5500 }, new Error('429'));
  assert.equal(a!.health.throttled, true);
  assert.deepEqual(metrics.throttled, [5.5]);
  advance(5499);
  assert.equal(names()[0], 'https://rpc1.example');
  advance(1);
  assert.equal(names()[0], 'https://rpc0.example');
});

test('an endpoint whose head trails the newest by more than behindBy serves only after the others', () => {
  const { p, names } = pool();
  const [a, b] = p.members;
  p.succeeded(a!, 10);
  p.succeeded(b!, 500);
  assert.equal(p.observeHead(a!, 1000), 1000);
  assert.equal(p.observeHead(b!, 1030), 1030);
  assert.equal(p.isBehind(a!), true);
  assert.deepEqual(names(), ['https://rpc1.example', 'https://rpc0.example'], 'the slow one ahead beats the fast one behind');
  p.observeHead(a!, 1015);
  assert.equal(names()[0], 'https://rpc0.example', 'within behindBy: latency decides again');
});

test('attempt records the outcome, and an abort (shutdown) is nobody\'s fault', async () => {
  const { p } = pool(1);
  const [a] = p.members;
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(p.attempt(a!, ac.signal, async () => Promise.reject(new Error('aborted')), () => ({ kind: 'error' })));
  assert.equal(a!.health.failures, 0);
  await assert.rejects(p.attempt(a!, new AbortController().signal, async () => Promise.reject(new Error('boom')), () => ({ kind: 'error' })));
  assert.equal(a!.health.failures, 1);
});

test('URLs are shown without keys: no query, no credentials, no token-like path segment', () => {
  assert.equal(redactUrl('https://mainnet.helius-rpc.com/?api-key=abcd-1234'), 'https://mainnet.helius-rpc.com');
  assert.equal(redactUrl('https://user:pw@example.quiknode.pro/5f1e2d3c4b5a69788796a5b4c3d2e1f0/'), 'https://example.quiknode.pro/…/');
  assert.equal(redactUrl('https://solana-mainnet.g.alchemy.com/v2/AbCdEf0123456789xyz'), 'https://solana-mainnet.g.alchemy.com/v2/…');
  assert.equal(redactUrl('https://rpc.example/{apiKey}/solana'), 'https://rpc.example/…/solana');
  assert.equal(redactUrl('https://api.trongrid.io'), 'https://api.trongrid.io');
  assert.equal(callUrl({ url: 'https://rpc.example/?api-key={apiKey}', apiKey: 'k y', weight: 1 }), 'https://rpc.example/?api-key=k%20y');
});

test('two endpoints of one provider that differ only in their key get distinct labels', () => {
  const p = createUpstreamPool({
    endpoints: [{ url: 'https://rpc.example/?api-key={apiKey}', apiKey: 'a', weight: 1 }, { url: 'https://rpc.example/?api-key={apiKey}', apiKey: 'b', weight: 1 }],
    clock: { now: () => 0 },
    random: mid,
    backoff: { baseMs: 1, maxMs: 1 },
    behindBy: 1,
  });
  assert.deepEqual(p.members.map((m) => m.label), ['https://rpc.example', 'https://rpc.example#2']);
});

/** Two or three endpoints with the head rules a chain uses: a head per second, suspect beyond 100 past what the others allow. */
function judged(n = 2, quorum?: number) {
  let now = 1_000_000;
  const p = createUpstreamPool({
    endpoints: Array.from({ length: n }, (_, i) => ({ url: `https://rpc${i}.example/`, weight: 1 })),
    clock: { now: () => now },
    random: mid,
    backoff: { baseMs: 1000, maxMs: 8000 },
    behindBy: 5,
    aheadBy: 100,
    headIntervalMs: 1000,
    ...(quorum !== undefined ? { quorum } : {}),
  });
  return { p, advance: (ms: number) => (now += ms), now: () => now };
}

test('a head far ahead of the others is suspect, whichever answered first; the agreed head is the honest one', () => {
  const { p } = judged();
  const [liar, honest] = p.members;
  p.observeHead(liar!, 9_000_000_000); // answers first, nothing to compare with yet
  p.observeHead(honest!, 5000);
  assert.equal(p.believed(liar!), false);
  assert.equal(p.believed(honest!), true);
  assert.equal(p.agreedHead()?.head, 5000);
  assert.equal(p.newestHead(), 5000);
  assert.equal(p.order()[0], honest, 'the honest endpoint serves first');
});

test('a head whose block time is past the wall clock is suspect even when it is alone', () => {
  const { p, now } = judged(1);
  const [only] = p.members;
  p.observeHead(only!, 100, now() + 30 * 86_400_000);
  assert.equal(p.believed(only!), false);
  assert.equal(p.agreedHead(), undefined);
  p.observeHead(only!, 101, now());
  assert.equal(p.believed(only!), true);
});

test('an endpoint that falls behind leaves the one ahead believed; the one ahead serves first', () => {
  const { p, advance } = judged();
  const [a, b] = p.members;
  p.observeHead(a!, 1000);
  p.observeHead(b!, 1000);
  advance(10_000);
  p.observeHead(b!, 490); // restarted from an old snapshot, 500 behind
  p.observeHead(a!, 1010);
  assert.equal(p.believed(a!), true, 'ten heads in ten seconds is what the chain makes');
  assert.equal(p.isBehind(b!), true);
  assert.equal(p.order()[0], a);
  assert.equal(p.agreedHead()?.head, 490, 'two confirmations by default: the cursor waits for the lower');
});

test('a transaction is confirmed by the quorum, waits while the others do not know it, and a contradiction wins', async () => {
  const { p } = judged(3, 2);
  const [a, b, c] = p.members;
  assert.equal(await p.confirm(a!, async (m) => (m === b ? 'same' : 'unknown')), 'confirmed');
  assert.equal(await p.confirm(a!, async () => 'unknown'), 'unknown');
  assert.equal(await p.confirm(a!, async () => Promise.reject(new Error('down'))), 'unknown', 'a failed question is not knowing');
  assert.equal(await p.confirm(a!, async (m) => (m === c ? 'differs' : 'unknown')), 'contradicted');
  const one = judged(2, 1).p;
  assert.equal(await one.confirm(one.members[0]!, async () => 'differs'), 'confirmed', 'a quorum of 1 asks nobody');
});

/**
 * The TRON source with two TronGrid endpoints over one chain (two fakes sharing their transfers),
 * without payd: one endpoint answers TronGrid's 429 body, then 503, then recovers; the other
 * falls behind and catches up. Every payment is ingested once, by the next poll after it is
 * visible on a healthy endpoint (PROMPT_MS of this process's running time); the lag reported follows the newest head either endpoint showed;
 * metrics and logs name endpoints without their keys. "A minute" of throttling is compressed to
 * about two seconds (a TronGrid body saying "suspended for 1 s").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopwatch } from '../helpers/stopwatch.ts';
import { Secret } from '../../src/config/secret.ts';
import { TRC20_TOKENS, tronAsset } from '../../src/methods/tron/tokens.ts';
import { createTronSource } from '../../src/methods/tron/source.ts';
import { runWithCycleReporter, type CycleReporter } from '../../src/runtime/cycle.ts';
import { recordingLogger } from '../helpers/solana-ledger.ts';
import { createFakeLedger } from '../helpers/tron-ledger.ts';
import { midRandom } from '../helpers/tron-harness.ts';
import { MERCHANT, RATE_LIMIT_429, USDT, startFakeTronGrid, type FakeTronGrid } from '../fakes/trongrid.ts';

/** The one TRC20 token shipped (USDT), as its source sees it. */
const TRON_USDT = tronAsset(TRC20_TOKENS[0]!);

const POLL_MS = 200;
const TIMEOUT_MS = 1000;
const BACKOFF_MAX_MS = 400;
const HEAD_WAIT_MS = 300;
/**
 * "By the next poll", as a bound: the poll under way when the payment appeared, the next one, and
 * one failed request on the way (its timeout, the head wait, a backoff with its 20 % jitter), counted
 * in this process's running time (stopwatch), so a loaded machine's stalls are not the source's.
 */
const PROMPT_MS = 2 * POLL_MS + TIMEOUT_MS + HEAD_WAIT_MS + BACKOFF_MAX_MS * 1.2;
const KEY_A = 'key-A-0123456789abcdef';
const KEY_B = 'key-B-0123456789abcdef';

async function until<T>(what: string, ms: number, probe: () => T | undefined | false): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('two TronGrid endpoints: 429 then 503 on one, the other lagging then catching up; every payment once, promptly, lag and metrics follow', async (t) => {
  const a = await startFakeTronGrid();
  const b = await startFakeTronGrid();
  t.after(() => Promise.all([a.close(), b.close()]));
  b.transfers = a.transfers; // one chain, two providers
  a.apiKey = KEY_A;
  b.apiKey = KEY_B;
  a.faultsHitHead = true;

  const ledger = createFakeLedger(1);
  const log = recordingLogger();
  const metrics = { requests: [] as { endpoint: string; outcome: string }[], throttled: [] as { endpoint: string; seconds: number }[] };
  const source = createTronSource(
    TRON_USDT,
    {
      address: MERCHANT,
      contract: USDT,
      endpoints: [
        { url: a.url, apiKey: new Secret(KEY_A), weight: 1 },
        { url: b.url, apiKey: new Secret(KEY_B), weight: 1 },
      ],
      // One endpoint's word is enough here (the operator's choice): this is about staying available.
      confirmations: { endpoints: 1 },
      pollSeconds: POLL_MS / 1000,
      rescanSeconds: 600,
      rescanHours: 24, unconfirmedMinutes: 30,
      maxLagSeconds: 120,
      maxOffsetSteps: 100,
    },
    {
      ledger,
      clock: { now: () => Date.now() },
      random: midRandom,
      log,
      tuning: { timeoutMs: TIMEOUT_MS, backoff: { baseMs: 50, maxMs: BACKOFF_MAX_MS }, headWaitMs: HEAD_WAIT_MS },
      upstreamMetrics: {
        upstreamRequest: (endpoint, outcome) => metrics.requests.push({ endpoint, outcome }),
        upstreamThrottled: (endpoint, seconds) => metrics.throttled.push({ endpoint, seconds }),
      },
    },
  );
  const caughtUp: { at: number; asOf: number }[] = [];
  const reporter: CycleReporter = { interval: () => {}, ok: () => {}, failed: () => {}, caughtUp: (asOf) => caughtUp.push({ at: Date.now(), asOf }) };
  const ac = new AbortController();
  const done = runWithCycleReporter(reporter, ac.signal, (s) => source.run(s));
  t.after(async () => {
    ac.abort();
    await done;
  });

  const ingestedOnce = (txid: string) => ledger.ingests.filter((i) => i.payment.txHash === txid && i.outcome.kind !== 'duplicate').length;
  /** Adds a payment and returns how long it took to be ingested, ms. */
  async function pay(fake: FakeTronGrid, value: string, what: string): Promise<{ txid: string; ms: number }> {
    const since = stopwatch();
    const tr = fake.add({ value, block_timestamp: Date.now() - 60_000 });
    await until(what, 5000, () => ingestedOnce(tr.transaction_id) === 1);
    return { txid: tr.transaction_id, ms: since.stop() };
  }
  await until('a first complete listing', 5000, () => caughtUp.length > 0);

  // Phase 1: A answers TronGrid's 429 ("suspended for 1 s") for about two seconds; B carries the load.
  a.faults.push({ status: 429, body: { Error: RATE_LIMIT_429.replace('5 s', '1 s') }, times: 1_000_000 });
  const p1 = await pay(a, '11000000', 'a payment while A is rate-limited');
  await new Promise((r) => setTimeout(r, 2000));
  // Phase 2: A answers 503 (over its limit, the older TronGrid way) for about two seconds.
  a.faults.length = 0;
  a.faults.push({ status: 503, times: 1_000_000 });
  const p2 = await pay(a, '22000000', 'a payment while A answers 503');
  await new Promise((r) => setTimeout(r, 1500));
  // Phase 3: A recovers; B falls 10 minutes behind: a payment visible on A only is taken from A.
  a.faults.length = 0;
  b.behindBlocks = 200;
  const phase3 = Date.now();
  const p3 = await pay(a, '33000000', 'a payment only the endpoint ahead shows');
  // Phase 4: A is down altogether (500s), B still behind: a new payment is not visible anywhere yet…
  a.faults.push({ status: 500, times: 1_000_000 });
  const phase4 = Date.now();
  const p4 = a.add({ value: '44000000', block_timestamp: Date.now() - 60_000 });
  const reportsBefore = caughtUp.length;
  await until('several cycles on the lagging endpoint alone', 5000, () => caughtUp.length >= reportsBefore + 3);
  assert.equal(ingestedOnce(p4.transaction_id), 0, 'not visible on any healthy endpoint yet');
  // …and the lag keeps counting from before B fell behind: its head is older than heads A showed.
  const lagging = caughtUp.slice(reportsBefore);
  assert.ok(lagging.every((c) => c.asOf < phase3), `lag not reset by the lagging endpoint: ${JSON.stringify(lagging.map((c) => c.at - c.asOf))}`);
  // B catches up: the payment settles by the next poll after it becomes visible there.
  const visible = stopwatch();
  b.behindBlocks = 0;
  await until('the payment once B caught up', 5000, () => ingestedOnce(p4.transaction_id) === 1);
  const p4ms = visible.stop();
  await until('a report caught up to now', 5000, () => caughtUp.some((c) => c.asOf >= phase4));

  // Each payment exactly once; the ones made while A was throttled or failing came through B promptly.
  for (const p of [p1, p2, p3]) assert.equal(ingestedOnce(p.txid), 1);
  assert.equal(ledger.payments().length, 4);
  for (const ms of [p1.ms, p2.ms, p3.ms, p4ms]) assert.ok(ms < PROMPT_MS, `settled after ${ms.toFixed(0)} ms of this process's running time (bound ${PROMPT_MS} ms)`);

  // Metrics: by endpoint URL (no key). A's 429s rested for the time its body named (1 s + 0.5 s); its 503s
  // (TronGrid's older over-limit answer, no wait named) for the backoff; its 500s were errors.
  const labels = new Set(metrics.requests.map((r) => r.endpoint));
  assert.deepEqual([...labels].sort(), [a.url, b.url].sort());
  assert.ok(metrics.requests.some((r) => r.endpoint === a.url && r.outcome === 'throttled'));
  assert.ok(metrics.requests.some((r) => r.endpoint === a.url && r.outcome === 'error'));
  assert.ok(metrics.requests.some((r) => r.endpoint === a.url && r.outcome === 'ok'));
  assert.ok(metrics.throttled.some((x) => x.seconds === 1.5), JSON.stringify(metrics.throttled));
  assert.ok(metrics.throttled.every((x) => x.endpoint === a.url && x.seconds > 0 && x.seconds <= 1.5), JSON.stringify(metrics.throttled));
  // While resting, A was asked at most once per named wait: no hammering a throttled endpoint.
  const rateLimited = metrics.throttled.filter((x) => x.seconds === 1.5).length;
  assert.ok(rateLimited <= 6, `A asked ${rateLimited} times during its 429 phase (about 2 s, 1.5 s rests, head and listing)`);
  // Keys went as headers only; never into a log line.
  const logged = JSON.stringify(log.lines, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  assert.ok(!logged.includes(KEY_A) && !logged.includes(KEY_B));
  // Logs name the endpoint by its URL, without the key.
  assert.ok(log.lines.some((l) => l.msg === 'TronGrid solidified head unreadable; the lag cannot advance' && l.fields.endpoint === a.url));
});

test('doctor: one line per TronGrid endpoint, the key never shown, usable when one endpoint is', async (t) => {
  const a = await startFakeTronGrid();
  const b = await startFakeTronGrid();
  t.after(() => Promise.all([a.close(), b.close()]));
  a.apiKey = KEY_A;
  const source = createTronSource(
    TRON_USDT,
    {
      address: MERCHANT,
      contract: USDT,
      endpoints: [
        { url: a.url, apiKey: new Secret('wrong-0123456789abcdef'), weight: 1 },
        { url: b.url, apiKey: new Secret(KEY_B), weight: 2 },
      ],
      pollSeconds: 10,
      rescanSeconds: 600,
      rescanHours: 24, unconfirmedMinutes: 30,
      maxLagSeconds: 120,
      maxOffsetSteps: 100,
    },
    { ledger: createFakeLedger(), clock: { now: () => Date.now() }, random: midRandom, log: recordingLogger(), tuning: { timeoutMs: 1000 } },
  );
  const r = await source.check(AbortSignal.timeout(5000));
  assert.equal(r.ok, true, r.message);
  assert.equal(r.message, '1 of 2 TronGrid endpoints usable');
  assert.equal(r.endpoints?.length, 2);
  assert.deepEqual(r.endpoints!.map((e) => [e.what, e.ok]), [[a.url, false], [b.url, true]]);
  assert.match(r.endpoints![0]!.message, /rejected the API key \(HTTP 401: ApiKey not exists\)/);
  assert.match(r.endpoints![1]!.message, /reachable at .* in \d+ ms; API key accepted; solidified block \d+/);
  assert.ok(!JSON.stringify(r).includes('wrong-0123456789abcdef') && !JSON.stringify(r).includes(KEY_B));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TronGridError } from '../../src/methods/tron/client.ts';
import { RATE_LIMIT_403, RATE_LIMIT_429, startFakeTronGrid } from '../fakes/trongrid.ts';
import { running, startHarness, waitFor, withKey } from '../helpers/tron-harness.ts';

const signal = () => AbortSignal.timeout(10_000);
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);

test('a 500/404 storm is backed off with growing waits and the source recovers by itself', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  // 500s, and the sporadic v1-envelope 404 (TRON-US/trongrid#9); a 429 names its own wait (next test).
  h.fake.faults.push({ status: 500, times: 3 }, { status: 404, times: 3 });
  const tr = h.fake.add({ value: '9990000' });

  const stop = running(h.source());
  await waitFor(() => h.ledger.ingests.length === 1, 8000, 'ingest after the storm');
  const later = h.fake.add({ value: '8880000' });
  await waitFor(() => h.ledger.ingests.length === 2, 3000, 'polling resumed');
  await stop();

  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [tr.transaction_id, later.transaction_id],
  );
  // Six failures, then success: waits of 50, 100, 200, 400, 400, 400 ms (base 50, cap 400, jitter at midpoint).
  // Measured where the requests leave (fetch calls), so a slow loopback cannot shorten a gap.
  const storm = gaps(h.fetchTimes.slice(0, 7));
  const expected = [50, 100, 200, 400, 400, 400];
  storm.forEach((g, i) => assert.ok(g >= expected[i] - 15, `wait ${i + 1} was ${g} ms, expected about ${expected[i]}`));
});

test('TronGrid sends no Retry-After: the wait its 429 body names ("suspended for N s") is honoured, even when the backoff would retry sooner', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  // The measured body, with a 1 s suspension so the test stays short (the real one says 5 s).
  h.fake.faults.push({ status: 429, body: { Error: RATE_LIMIT_429.replace('5 s', '1 s') }, times: 1 });
  h.fake.add({ value: '1230000' });

  const stop = running(h.source());
  await waitFor(() => h.ledger.ingests.length === 1, 5000, 'ingest after the suspension');
  await stop();

  const [first, second] = h.fetchTimes;
  // 1 s plus the half second the measured suspension overran; the backoff alone would retry after 50 ms.
  assert.ok(second - first >= 1450, `retried after ${second - first} ms`);
});

test('403 and 503 rate limits and an error inside an HTTP 200 are rate limits: waited out, never blamed on the key', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const source = h.source({ config: withKey('k') });
  // Recorded bodies, with 1 s suspensions so the test stays short.
  const bodies: Record<number, unknown> = { 503: undefined, 200: { Error: RATE_LIMIT_429.replace('5 s', '1 s') }, 403: { Error: RATE_LIMIT_403.replace('5 s', '1 s') } };
  for (const status of [503, 200, 403]) {
    h.fake.faults.push({ status, body: bodies[status], times: 1 });
    await assert.rejects(source.tick(signal()), (err: unknown) => err instanceof TronGridError && err.fault === 'rate_limited' && err.status === status);
  }
  await source.tick(signal());
  // The 200 and the 403 bodies said "suspended for 1 s": the request after each waited for it.
  for (const i of [2, 3]) {
    const gap = h.fetchTimes[i] - h.fetchTimes[i - 1];
    assert.ok(gap >= 1450, `request ${i + 1} came ${gap} ms after "suspended for 1 s"`);
  }

  h.fake.faults.push({ status: 403, times: 1 });
  const doctor = await h.source({ config: withKey('k') }).check(signal());
  assert.equal(doctor.ok, true, doctor.message);
  assert.match(doctor.message, /rate-limiting right now \(HTTP 403: request rate exceeded/);
  assert.match(doctor.message, /API key was not rejected/);
  assert.doesNotMatch(doctor.message, /check methods\.USDT_TRC20\.apiKey/);

  h.fake.faults.push({ status: 429, times: 1 });
  const anonymous = await h.source().check(signal());
  assert.equal(anonymous.ok, true, anonymous.message);
  assert.match(anonymous.message, /no API key set; one raises TronGrid's anonymous limit/);
});

test('without an API key, pages are paced at most one request per second (TronGrid allowed_rps(1))', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  for (let i = 0; i < 5; i++) h.fake.add({ value: String(1_000_000 + i) });
  // The real default for a source without a key, pages of 2 so one listing takes three requests.
  const source = h.source({ tuning: { minRequestIntervalMs: undefined, pageLimit: 2 } });
  await source.tick(signal());
  assert.equal(h.ledger.ingests.length, 5);
  const times = h.fetchTimes;
  assert.equal(times.length, 3);
  gaps(times).forEach((g) => assert.ok(g >= 950, `pages ${g} ms apart`));

  // With a key, no pacing: the same listing goes back to back.
  const keyed = await startHarness();
  t.after(() => keyed.close());
  for (let i = 0; i < 5; i++) keyed.fake.add({ value: String(1_000_000 + i) });
  await keyed.source({ config: withKey('k'), tuning: { minRequestIntervalMs: undefined, pageLimit: 2 } }).tick(signal());
  assert.equal(keyed.fake.requests.length, 3);
});

test('a hanging TronGrid times out, backs off and recovers', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.fake.faults.push({ hang: true, times: 2 });
  h.fake.add({ value: '4560000' });

  const source = h.source({ tuning: { timeoutMs: 200 } });
  const started = Date.now();
  await assert.rejects(source.tick(signal()), (err: unknown) => err instanceof TronGridError && /within 200 ms/.test(err.message));
  assert.ok(Date.now() - started < 1500, 'the tick gave up on its own');

  const stop = running(source);
  await waitFor(() => h.ledger.ingests.length === 1, 5000, 'ingest after the hang');
  await stop();
});

test('connection refused fails the cycle, never the loop', async (t) => {
  const closed = await startFakeTronGrid();
  await closed.close();
  const h = await startHarness();
  t.after(() => h.close());
  const source = h.source({ config: { apiUrl: closed.url } });

  await assert.rejects(source.tick(signal()), (err: unknown) => err instanceof TronGridError && /ECONNREFUSED/.test(err.message));

  const stop = running(source);
  await waitFor(() => h.fetchCalls() >= 4, 5000, 'three retries');
  await stop(); // resolves: the loop neither crashed nor hung
  // After the tick above: attempts 2, 3, 4 follow waits of 50 and 100 ms (base 50).
  const [, a2, a3, a4] = h.fetchTimes;
  assert.ok(a3 - a2 >= 45 && a4 - a3 >= 95, `backed off between attempts: ${gaps(h.fetchTimes).join(', ')} ms`);
});

test('a failed ingest is retried on the next cycle, not lost', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const tr = h.fake.add({ value: '7770000' });
  h.ledger.failIngests = 1;
  const source = h.source();

  await assert.rejects(source.tick(signal()), /database is locked/);
  await source.tick(signal());

  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [tr.transaction_id],
  );
});

test('doctor: reachable with an accepted key', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.fake.apiKey = 'good';

  const result = await h.source({ config: withKey('good') }).check(signal());

  assert.equal(result.ok, true, result.message);
  assert.match(result.message, /API key accepted/);
  assert.equal(h.fake.requests[0].url.searchParams.get('limit'), '1');
});

test('doctor: a rejected API key is reported as such', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.fake.apiKey = 'good';

  const result = await h.source({ config: withKey('wrong') }).check(signal());

  assert.equal(result.ok, false);
  assert.match(result.message, /rejected the API key \(HTTP 401: ApiKey not exists\)/);
  assert.doesNotMatch(result.message, /wrong/, 'the key itself is never printed');
});

test('doctor: an unreachable TronGrid is not ok', async (t) => {
  const closed = await startFakeTronGrid();
  await closed.close();
  const h = await startHarness();
  t.after(() => h.close());

  const result = await h.source({ config: { apiUrl: closed.url } }).check(signal());

  assert.equal(result.ok, false);
  assert.match(result.message, /ECONNREFUSED/);
});

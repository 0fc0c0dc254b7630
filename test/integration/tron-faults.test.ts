import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TronGridError } from '../../src/methods/tron/client.ts';
import { startFakeTronGrid } from '../fakes/trongrid.ts';
import { running, startHarness, waitFor, withKey } from '../fakes/tron-harness.ts';

const signal = () => AbortSignal.timeout(10_000);
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);

test('a 429/500 storm is backed off with growing waits and the source recovers by itself', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.fake.faults.push({ status: 429, times: 3 }, { status: 500, times: 3 });
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
  const storm = gaps(h.fake.requests.slice(0, 7).map((r) => r.at));
  const expected = [50, 100, 200, 400, 400, 400];
  storm.forEach((g, i) => assert.ok(g >= expected[i] - 15, `wait ${i + 1} was ${g} ms, expected about ${expected[i]}`));
});

test('Retry-After is honoured even when the backoff would retry sooner', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.fake.faults.push({ status: 429, retryAfter: '1', times: 1 });
  h.fake.add({ value: '1230000' });

  const stop = running(h.source());
  await waitFor(() => h.ledger.ingests.length === 1, 5000, 'ingest after Retry-After');
  await stop();

  const [first, second] = h.fake.requests;
  assert.ok(second.at - first.at >= 950, `retried after ${second.at - first.at} ms`);
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
  assert.match(result.message, /rejected the API key \(HTTP 401\)/);
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

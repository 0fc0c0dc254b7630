/**
 * The TRON source with two TronGrid endpoints where one lies, without payd: it claims a solidified
 * head a month ahead, lists a transfer dated 30 days ahead and a transfer no other endpoint knows.
 * Neither fabrication is handed to the ledger, the watermark never passes what both endpoints
 * agree on, and real transfers before and after the fabrications are read. Also: a transfer the
 * second endpoint does not know yet waits for it (then settles), one it contradicts never settles,
 * and the deep re-scan runs on another endpoint than the one that served the sweep.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { createTronSource, type TronSourceConfig, type TronTuning } from '../../src/methods/tron/source.ts';
import { readCursor } from '../../src/methods/tron/cursor.ts';
import { recordingLogger } from '../helpers/solana-ledger.ts';
import { createFakeLedger, type FakeLedger } from '../helpers/tron-ledger.ts';
import { midRandom, waitFor } from '../helpers/tron-harness.ts';
import { TRC20_TOKENS, tronAsset } from '../../src/methods/tron/tokens.ts';
import { MERCHANT, USDT, startFakeTronGrid, txid, type FakeTronGrid } from '../fakes/trongrid.ts';

const POLL_MS = 150;
const DAY = 86_400_000;

/** Two endpoints over one chain (shared `transfers`); `b` is preferred (weight 2), as a liar would arrange. */
async function twoEndpoints(t: TestContext, config: Partial<TronSourceConfig> = {}, tuning: Partial<TronTuning> = {}) {
  const a = await startFakeTronGrid();
  const b = await startFakeTronGrid();
  t.after(() => Promise.all([a.close(), b.close()]));
  b.transfers = a.transfers;
  const ledger = createFakeLedger(1);
  const log = recordingLogger();
  const source = createTronSource(
    tronAsset(TRC20_TOKENS[0]),
    {
      address: MERCHANT,
      contract: USDT,
      endpoints: [
        { url: a.url, weight: 1 },
        { url: b.url, weight: 2 },
      ],
      pollSeconds: POLL_MS / 1000,
      rescanSeconds: 600,
      rescanHours: 24, unconfirmedMinutes: 30,
      maxLagSeconds: 120,
      maxOffsetSteps: 100,
      ...config,
    },
    { ledger, clock: { now: () => Date.now() }, random: midRandom, log, tuning: { timeoutMs: 1000, backoff: { baseMs: 50, maxMs: 400 }, headWaitMs: 300, minRequestIntervalMs: 0, ...tuning } },
  );
  const ac = new AbortController();
  const done = source.run(ac.signal);
  t.after(async () => {
    ac.abort();
    await done;
  });
  return { a, b, ledger, log };
}

/** Listings on `fake` since `at` that reach back a day: the deep re-scan's. */
const rescans = (fake: FakeTronGrid, at: number) =>
  fake.requests.filter((r) => r.at >= at && Number(r.url.searchParams.get('min_timestamp')) < Date.now() - 23 * 3_600_000).length;
const ingested = (ledger: FakeLedger, id: string) => ledger.ingests.filter((i) => i.payment.txHash === id).length;
const watermark = (ledger: FakeLedger) => readCursor([...ledger.checkpoints.entries()].find(([k]) => !k.endsWith(':rescan'))?.[1])?.watermark;
/** Waits for `n` more listings on `fake` (cycles that went by). */
const listings = async (fake: FakeTronGrid, n: number) => {
  const from = fake.requests.length;
  await waitFor(() => fake.requests.length >= from + n, 8000, `${n} listings`);
};

test('a TronGrid endpoint claiming a future head, a transfer 30 days ahead and a transfer only it knows moves no money and no watermark', async (t) => {
  const { a, b, ledger } = await twoEndpoints(t);
  b.behindBlocks = -(30 * DAY) / 3000; // a head a month ahead, its block time in the future
  const before = a.add({ value: '12000000', block_timestamp: Date.now() - 120_000 });
  const future = b.addOwn({ value: '50000000', block_timestamp: Date.now() + 30 * DAY });
  const fake = b.addOwn({ value: '77000000', block_timestamp: Date.now() - 90_000 });
  await waitFor(() => ingested(ledger, before.transaction_id) === 1, 8000, 'the real transfer');
  // A real transfer made after the fabrications is still listed: the watermark did not jump.
  const after = a.add({ value: '13000000', block_timestamp: Date.now() - 60_000 });
  await waitFor(() => ingested(ledger, after.transaction_id) === 1, 8000, 'the real transfer made after the fabrications');
  await listings(a, 4);
  assert.equal(ingested(ledger, future.transaction_id), 0, 'the transfer dated 30 days ahead is not handed to the ledger');
  assert.equal(ingested(ledger, fake.transaction_id), 0, 'a transfer no second endpoint confirms is not handed to the ledger');
  const mark = watermark(ledger);
  assert.ok(mark !== undefined && mark <= Date.now() + 60_000, `watermark ${mark} is within the wall clock`);
  assert.deepEqual(ledger.payments().map((p) => p.txHash).sort(), [before.transaction_id, after.transaction_id].sort());
});

test('with two endpoints, a transfer settles once the second endpoint lists it too; one the second contradicts never settles', async (t) => {
  const { a, b, ledger, log } = await twoEndpoints(t);
  // B, preferred and at the same head, lists a transfer no other endpoint knows: it never settles.
  const only = b.addOwn({ value: '61000000', block_timestamp: Date.now() - 60_000 });
  await listings(a, 2);
  // Only A has it so far (B lags 200 blocks, ten minutes): it waits, neither dropped nor rejected.
  b.behindBlocks = 200;
  const waiting = a.add({ value: '21000000', block_timestamp: Date.now() - 60_000 });
  await listings(a, 4);
  assert.equal(ingested(ledger, waiting.transaction_id), 0, 'not settled on one endpoint alone');
  assert.equal(ledger.rejects.length, 0, 'nor rejected');
  const visible = Date.now();
  b.behindBlocks = 0;
  await waitFor(() => ingested(ledger, waiting.transaction_id) === 1, 8000, 'the transfer once B lists it');
  assert.ok(Date.now() - visible < POLL_MS + 3000, `settled ${Date.now() - visible} ms after B listed it`);
  // B lists the same transaction with another amount: the endpoints disagree, nothing settles.
  const id = txid();
  a.addOwn({ transaction_id: id, value: '31000000', block_timestamp: Date.now() - 60_000 });
  b.addOwn({ transaction_id: id, value: '31000001', block_timestamp: Date.now() - 60_000 });
  await listings(a, 4);
  await listings(b, 4);
  assert.equal(ingested(ledger, id), 0);
  assert.equal(ingested(ledger, only.transaction_id), 0, 'a transfer only one endpoint serves');
  assert.ok(b.requests.some((r) => r.url.searchParams.get('max_timestamp') === null), 'B served sweeps');
  assert.ok(log.lines.some((l) => l.msg === 'TronGrid endpoints disagree about a transfer; not settled' && l.fields.txid === id));
});

test('the deep re-scan lists on another endpoint than the one that served the sweep', async (t) => {
  // Requests get a generous deadline: on a loaded machine a timed-out sweep on B hands the cycle to A,
  // and that cycle's re-scan rightly runs on B, blurring the count below.
  const { a, b, ledger, log } = await twoEndpoints(t, { confirmations: { endpoints: 1 } }, { rescanMs: 300, timeoutMs: 5000 });
  const backfilled = Date.now() - 20 * 60_000;
  // A recent transfer both list moves the watermark past the back-filled time plus the sweep's
  // 5-minute overlap: after it, no sweep (on B, or on A as the second endpoint) lists that time.
  const recent = a.add({ value: '40000000', block_timestamp: Date.now() - 60_000 });
  await waitFor(() => ingested(ledger, recent.transaction_id) === 1, 8000, 'the recent transfer');
  await waitFor(() => (watermark(ledger) ?? 0) - 5 * 60_000 > backfilled, 8000, 'the watermark past the back-filled time');
  await listings(b, 2);
  const late = a.addOwn({ value: '41000000', block_timestamp: backfilled });
  await waitFor(() => ledger.payments().some((p) => p.txHash === late.transaction_id), 8000, 'the re-scan on the other endpoint');
  assert.equal(ingested(ledger, late.transaction_id), 1, 'found once');
  // Re-scans list from a day back; sweeps now from minutes back. B, preferred, serves the sweeps,
  // so the re-scans run mostly on A (on B only in a cycle where A did not answer).
  // Counted from now: the first start's own sweeps also list from a day back, and on a fast run they fall within seconds of here.
  const since = Date.now();
  await waitFor(() => rescans(a, since) + rescans(b, since) >= 4, 8000, 'four re-scans');
  assert.ok(rescans(a, since) > rescans(b, since), `re-scans on A ${rescans(a, since)}, on B ${rescans(b, since)}`);
  assert.ok(log.lines.some((l) => l.msg === 'TronGrid re-scan found a transfer the listing had missed' && l.fields.txid === late.transaction_id));
});

test('a transfer no second endpoint lists within the bound is recorded as rejected (unconfirmed_transfer), logged as an error, and moves no money', async (t) => {
  const BOUND_MS = 3000;
  const { b, ledger, log } = await twoEndpoints(t, {}, { unconfirmedMs: BOUND_MS });
  const only = b.addOwn({ value: '81000000', block_timestamp: Date.now() - 60_000 });
  await waitFor(() => log.lines.some((l) => l.msg === 'TronGrid transfer waits for a second endpoint to list it' && l.fields.txid === only.transaction_id), 8000, 'the transfer waiting');
  assert.equal(ledger.rejects.length, 0, 'not rejected while within the bound');
  await waitFor(() => ledger.rejects.length > 0, BOUND_MS + 8000, 'the rejection after the bound');
  assert.equal(ledger.rejects.length, 1, 'one rejection, once');
  const r = ledger.rejects[0]!.observation;
  assert.equal(r.reason, 'unconfirmed_transfer');
  assert.equal(r.detail?.txid, only.transaction_id);
  assert.equal(r.detail?.amount_minor, '81000000');
  assert.match(String(r.detail?.why), /no second endpoint listed it within 0\.05 minutes/);
  assert.ok(log.lines.some((l) => l.level === 'error' && l.msg === 'TronGrid transfer not confirmed by a second endpoint in time; recorded as rejected' && l.fields.txid === only.transaction_id));
  await listings(b, 3);
  assert.equal(ingested(ledger, only.transaction_id), 0, 'no money moved');
  assert.equal(ledger.rejects.length, 1, 'listed again, not rejected again');
});

test('doctor: with a single TronGrid endpoint, says that payd trusts that provider entirely', async (t) => {
  const a = await startFakeTronGrid();
  t.after(() => a.close());
  const source = createTronSource(
    tronAsset(TRC20_TOKENS[0]),
    { address: MERCHANT, contract: USDT, apiUrl: a.url, pollSeconds: 10, rescanSeconds: 600, rescanHours: 24, unconfirmedMinutes: 30, maxLagSeconds: 120, maxOffsetSteps: 100 },
    { ledger: createFakeLedger(), clock: { now: () => Date.now() }, random: midRandom, log: recordingLogger(), tuning: { timeoutMs: 1000 } },
  );
  const r = await source.check(AbortSignal.timeout(5000));
  assert.equal(r.ok, true, r.message);
  assert.match(r.message, /only one endpoint: payd trusts that provider entirely/);
});

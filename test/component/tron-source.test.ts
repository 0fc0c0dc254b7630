import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOMER, MERCHANT, OTHER_TOKEN, STRANGER, USDT } from '../fakes/trongrid.ts';
import { running, startHarness, waitFor, withKey } from '../helpers/tron-harness.ts';

const HOUR = 3_600_000;
const signal = () => AbortSignal.timeout(10_000);

test('a confirmed USDT transfer is ingested with its TronGrid facts and the checkpoint covering it', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const tr = h.fake.add({ value: '25010000', block_timestamp: Date.now() - 90_000 });
  const source = h.source({ config: withKey('k-123') });

  await source.tick(signal());

  assert.equal(h.ledger.ingests.length, 1);
  const { payment, checkpoint } = h.ledger.ingests[0];
  assert.equal(payment.method, 'USDT_TRC20');
  assert.equal(payment.receiver, MERCHANT);
  assert.equal(payment.amountMinor, 25_010_000n);
  assert.equal(payment.txHash, tr.transaction_id);
  assert.equal(payment.txRef, `${tr.transaction_id}:${tr.from}:${tr.value}`, 'one row, named by what it says');
  assert.equal(payment.occurredAt, tr.block_timestamp);
  assert.equal(payment.source, 'trongrid');
  assert.ok(Math.abs(payment.observedAt - Date.now()) < 5000);
  assert.equal(payment.evidence?.from, CUSTOMER);
  assert.equal(payment.evidence?.block_timestamp, tr.block_timestamp);
  // The checkpoint handed over with the payment already includes it.
  assert.ok(checkpoint);
  assert.deepEqual(Object.keys((checkpoint.value as { seen: object }).seen), [payment.txRef]);

  const req = h.fake.requests[0];
  assert.equal(req.apiKey, 'k-123');
  assert.equal(req.url.searchParams.get('only_confirmed'), 'true');
  assert.equal(req.url.searchParams.has('only_to'), false, 'outgoing rows are listed too, to net a transaction\'s incoming rows');
  assert.equal(req.url.searchParams.get('contract_address'), USDT);
  assert.equal(req.url.searchParams.get('limit'), '200');
});

test('an unconfirmed transfer is not ingested until TronGrid confirms it', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const tr = h.fake.add({ value: '5000000', confirmed: false });
  const source = h.source();

  await source.tick(signal());
  await source.tick(signal());
  assert.equal(h.ledger.ingests.length, 0);

  h.fake.confirm(tr.transaction_id);
  await source.tick(signal());
  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [tr.transaction_id],
  );
});

test('other tokens, Approvals, transfers to other addresses and outgoing transfers are never ingested', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.fake.add({ value: '1000000', token: { address: OTHER_TOKEN, symbol: 'USDC', decimals: 6, name: 'USD Coin' } });
  h.fake.add({ value: '1000000', type: 'Approval' });
  h.fake.add({ value: '1000000', to: STRANGER });
  h.fake.add({ value: '1000000', from: MERCHANT, to: STRANGER });
  const good = h.fake.add({ value: '7000000' });
  const source = h.source();

  await source.tick(signal());
  await source.tick(signal());

  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [good.transaction_id],
  );
});

test('a transfer listed again inside the overlap window is ingested once, also after a restart', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const tr = h.fake.add({ value: '3000000', block_timestamp: Date.now() - 10_000 });

  const first = h.source();
  await first.tick(signal());
  await first.tick(signal());
  await h.source().tick(signal());

  assert.equal(h.fake.served.get(tr.transaction_id), 3, 'TronGrid listed it on every cycle');
  assert.equal(h.ledger.ingests.length, 1, 'the ledger was asked once');
});

test('650 transfers are read across 200-item pages, each ingested once, oldest first', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const start = Date.now() - 2 * HOUR;
  const ids = new Set<string>();
  for (let i = 0; i < 650; i++) ids.add(h.fake.add({ value: String(1_000_000 + i), block_timestamp: start + i * 10_000 }).transaction_id);
  const source = h.source();

  await source.tick(signal());

  assert.equal(h.ledger.ingests.length, 650);
  assert.deepEqual(new Set(h.ledger.ingests.map((i) => i.payment.txHash)), ids);
  const times = h.ledger.ingests.map((i) => i.payment.occurredAt);
  assert.deepEqual(times, [...times].sort((a, b) => a - b));
  const pages = h.fake.requests;
  assert.equal(pages.length, 4);
  assert.deepEqual(
    pages.map((r) => r.url.searchParams.has('fingerprint')),
    [false, true, true, true],
  );
  assert.equal(new Set(pages.map((r) => r.url.searchParams.get('min_timestamp'))).size, 1, 'filters unchanged while paging');

  await source.tick(signal());
  assert.equal(h.ledger.ingests.length, 650, 'nothing new on the next cycle');
  assert.equal(h.fake.requests.length, 5, 'the next cycle re-reads only the overlap: one page');
});

test('transfers made while payd was stopped settle when it starts again', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const before = h.fake.add({ value: '1100000', block_timestamp: Date.now() - 20 * 60_000 });

  const stop = running(h.source());
  await waitFor(() => h.ledger.ingests.length === 1, 5000, 'first transfer');
  await stop();

  // While stopped: one transfer after the checkpoint, and one TronGrid indexed late,
  // a minute older than the checkpoint (inside the re-read overlap).
  const during = [
    h.fake.add({ value: '2200000', block_timestamp: Date.now() - 60_000 }),
    h.fake.add({ value: '3300000', block_timestamp: before.block_timestamp - 60_000 }),
  ];
  const requestsWhileStopped = h.fake.requests.length;
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(h.fake.requests.length, requestsWhileStopped, 'a stopped source makes no requests');

  const stop2 = running(h.source());
  await waitFor(() => h.ledger.ingests.length === 3, 5000, 'backfilled transfers');
  await new Promise((r) => setTimeout(r, 150));
  await stop2();

  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [before.transaction_id, during[1].transaction_id, during[0].transaction_id],
  );
});

test('a first start looks back 24 hours, not to the account\'s beginning', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.fake.add({ value: '1000000', block_timestamp: Date.now() - 25 * HOUR });
  const recent = h.fake.add({ value: '2000000', block_timestamp: Date.now() - 23 * HOUR });

  await h.source().tick(signal());

  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [recent.transaction_id],
  );
});

test('a first start that saw nothing still remembers where it began', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  // The first run happened 30 h ago and found nothing; payd was then stopped for a day.
  await h.source({ clock: { now: () => Date.now() - 30 * HOUR } }).tick(signal());
  const whileStopped = h.fake.add({ value: '6000000', block_timestamp: Date.now() - 26 * HOUR });

  await h.source().tick(signal());

  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [whileStopped.transaction_id],
  );
});

test('the number of requests per cycle does not grow with open intents', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  for (let i = 0; i < 30; i++) h.fake.add({ value: String(10_000_000 + i * 10_000), block_timestamp: Date.now() - 60_000 - i * 1000 });
  const source = h.source();
  await source.tick(signal()); // catch-up

  const perCycle = async (open: number) => {
    h.ledger.openIntents = open;
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = h.fetchCalls();
      await source.tick(signal());
      counts.push(h.fetchCalls() - before);
    }
    return counts;
  };
  assert.deepEqual(await perCycle(1), [1, 1, 1]);
  assert.deepEqual(await perCycle(1000), [1, 1, 1]);
});

test('with no open intents the source stays quiet after catching up, sweeping now and then', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  h.ledger.openIntents = 0;
  const stray = h.fake.add({ value: '4000000' });
  const source = h.source({ tuning: { idleSweepMs: 400 } });

  await source.tick(signal());
  assert.equal(h.fetchCalls(), 1, 'the start-up catch-up lists even without open intents');
  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [stray.transaction_id],
    'a stray payment is still recorded',
  );

  for (let i = 0; i < 5; i++) await source.tick(signal());
  assert.equal(h.fetchCalls(), 1, 'no calls while nothing can settle');

  await new Promise((r) => setTimeout(r, 450));
  await source.tick(signal());
  assert.equal(h.fetchCalls(), 2, 'the periodic sweep');

  h.ledger.openIntents = 1;
  await source.tick(signal());
  assert.equal(h.fetchCalls(), 3, 'an open intent brings polling back at once');
});

test('a checkpoint written before rows were told apart (bare transaction ids) still counts its transfers as seen', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const old = h.fake.add({ value: '1000000', block_timestamp: Date.now() - 60_000 });
  const fresh = h.fake.add({ value: '2000000', block_timestamp: Date.now() - 30_000 });
  // The v1 cursor of the previous version: the old transfer was handled and is inside the overlap.
  h.ledger.checkpoints.set(`trongrid:USDT_TRC20:${MERCHANT}:${USDT}`, { v: 1, watermark: old.block_timestamp, seen: { [old.transaction_id]: old.block_timestamp } });
  await h.source().tick(signal());
  assert.deepEqual(
    h.ledger.ingests.map((i) => i.payment.txHash),
    [fresh.transaction_id],
  );
});

// Several nodes on one PostgreSQL: two in-process payd apps, each with its own pool and HTTP
// server, on one database. Correctness rests on the database (unique indexes, row locks,
// SKIP LOCKED claims, the lease row on the database's clock), never on one process's lock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeTx } from '../../src/db/open.ts';
import { silentLogger } from '../../src/log/index.ts';
import { createOutbox } from '../../src/services/events/outbox.ts';
import { systemRandom } from '../../src/system.ts';
import { undiciPost } from '../helpers/undici-post.ts';
import { createDispatcher } from '../../src/webhooks/dispatcher.ts';
import { createWorkerLease } from '../../src/workers/lease.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { testStore } from '../helpers/stores.ts';

const store = testStore('postgres');

/** Two nodes on one fresh database; the first migrates it. */
async function twoNodes(t: import('node:test').TestContext): Promise<[PaydHarness, PaydHarness]> {
  const shared = { url: await store.database() };
  const a = await startPayd({ config: await store.config(shared) });
  t.after(() => a.close());
  const b = await startPayd({ config: await store.config(shared) });
  t.after(() => b.close());
  return [a, b];
}

/** A create as a merchant's backend sends it, once: concurrent creates must not meet 503 BUSY, so none is retried here. */
function create(node: PaydHarness, headers: Record<string, string>, body: object) {
  return node.api('POST', '/api/v1/intents/create-payment', { body, headers });
}

test('20 concurrent identical creates spread over two nodes → one intent; every answer is that intent', async (t) => {
  const [a, b] = await twoNodes(t);
  const m = await a.merchant();
  const body = { amount: 250, currency: 'UPI', order_id: 'race-1' };
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 ? b : a, m.headers, body)));
  assert.deepEqual(results.map((r) => r.status), Array(20).fill(200));
  assert.equal(new Set(results.map((r) => r.body.intent_id)).size, 1);
  assert.equal(new Set(results.map((r) => r.body.pay_amount)).size, 1);
  const rows = await a.app.db.selectFrom('intents').select('id').execute();
  assert.equal(rows.length, 1);
  // The losers' reservations were rolled back with them: only the winner holds an amount.
  const reservations = await a.app.db.selectFrom('amount_reservations').selectAll().execute();
  assert.deepEqual(reservations.map((r) => r.intent_id), [rows[0]!.id]);
  // A different amount under the same order id is still a conflict, on either node.
  const other = await create(b, m.headers, { ...body, amount: 251 });
  assert.equal(other.status, 409);
  assert.equal(other.body.code, 'ORDER_ID_CONFLICT');
});

test('99 concurrent creates of one whole amount over two nodes → 99 distinct pay_amounts, the whole window (₹100.01 to ₹100.99)', async (t) => {
  const [a, b] = await twoNodes(t);
  const m = await a.merchant();
  // ₹100 with 100 steps: ₹100.00 to ₹101.00 less the two whole amounts = 99 (docs/api.md, unique pay_amount).
  const results = await Promise.all(Array.from({ length: 99 }, (_, i) => create(i % 2 ? b : a, m.headers, { amount: 100, currency: 'UPI', order_id: `o-${i}` })));
  assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]), JSON.stringify(results.find((r) => r.status !== 200)?.body));
  const pays = results.map((r) => Math.round(r.body.pay_amount * 100)).sort((x, y) => x - y);
  assert.deepEqual(pays, Array.from({ length: 99 }, (_, i) => 10001 + i), '₹100.01 …: never the whole ₹100.00 or ₹101.00');
  const n = await a.app.db.selectFrom('amount_reservations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(n.n), 99);
});

test('two dispatchers on two nodes claiming the same outbox: every event delivered exactly once', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const [a, b] = await twoNodes(t);
  const m = await a.merchant('Shop', receiver.url);
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) ids.push(await (i % 2 ? b : a).app.events.enqueueTest(m.clientId));
  // No worker lease here (no holder): the claim itself must keep them apart.
  const dispatcher = (node: PaydHarness) =>
    createDispatcher({ db: node.app.db, merchants: node.app.merchants, clock: { now: () => Date.now() }, random: systemRandom, log: silentLogger(), post: undiciPost, timeoutMs: 5000, retrySchedule: [1], concurrency: 8, allowInsecureUrls: false, allowLoopback: true, pollMs: 20 });
  const ac = new AbortController();
  const runs = [dispatcher(a).run(ac.signal), dispatcher(b).run(ac.signal)];
  try {
    await receiver.waitFor(60, 60_000);
    // A double delivery would arrive right behind: give it time to show.
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    ac.abort();
    await Promise.all(runs);
  }
  const got = receiver.received.map((r) => String(r.headers['webhook-id']));
  assert.equal(got.length, 60);
  assert.deepEqual([...new Set(got)].sort(), [...ids].sort());
  const statuses = await a.app.db.selectFrom('events').select('status').distinct().execute();
  assert.deepEqual(statuses, [{ status: 'delivered' }]);
  const attempts = await a.app.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(attempts.n), 60);
});

test("worker lease across nodes: one leader by the database's clock (a node whose clock is an hour ahead cannot take a live lease); fail-over after expiry; a fenced dispatcher claims nothing", async (t) => {
  const [a, b] = await twoNodes(t);
  const ttlMs = 1500;
  const leaseA = createWorkerLease({ db: a.app.db, clock: { now: () => Date.now() }, me: { holder: 'holder-a', host: 'node-a', pid: 1 }, ttlMs });
  const leaseB = createWorkerLease({ db: b.app.db, clock: { now: () => Date.now() + 3_600_000 }, me: { holder: 'holder-b', host: 'node-b', pid: 2 }, ttlMs });
  assert.deepEqual(await leaseA.tryHold(), { held: true, acquired: true });
  const standby = await leaseB.tryHold();
  assert.equal(standby.held, false);
  assert.equal(!standby.held && standby.holder?.holder, 'holder-a');
  assert.deepEqual(await leaseA.tryHold(), { held: true, acquired: false }, 'the leader renews');

  // B is not the leader: its dispatcher, fenced by B's holder id, takes no event.
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const m = await a.merchant('Shop', receiver.url);
  await a.app.events.enqueueTest(m.clientId);
  const fenced = createDispatcher({ db: b.app.db, holder: 'holder-b', merchants: b.app.merchants, clock: { now: () => Date.now() }, random: systemRandom, log: silentLogger(), post: undiciPost, timeoutMs: 2000, retrySchedule: [1], concurrency: 4, allowInsecureUrls: false, allowLoopback: true, pollMs: 20 });
  const ac = new AbortController();
  const run = fenced.run(ac.signal);
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(receiver.received.length, 0, 'a node without the lease delivers nothing');

  // A stops renewing (dies): B takes over once the lease expired by the database's clock.
  const deadline = Date.now() + 20_000;
  let taken = await leaseB.tryHold();
  while (!taken.held && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    taken = await leaseB.tryHold();
  }
  assert.equal(taken.held && taken.acquired, true);
  assert.equal(taken.held && taken.previous?.holder, 'holder-a');
  assert.equal((await leaseA.tryHold()).held, false, 'the old leader finds it lost');
  // Now B's dispatcher may claim: the event goes out once.
  await receiver.waitFor(1, 10_000);
  ac.abort();
  await run;
  assert.equal(receiver.received.length, 1);
});

test('events.seq stays gap-free and in commit order under concurrent writers on two nodes: a reader following the feed misses nothing', async (t) => {
  const [a, b] = await twoNodes(t);
  const m = await a.merchant();
  const outbox = createOutbox({ clock: { now: () => Date.now() }, random: systemRandom });
  const N = 40;
  let writing = true;
  const seen: string[] = [];
  // The reader pages through the feed while the writers commit, the way a merchant catches up.
  const reader = (async () => {
    let after: string | undefined;
    for (let i = 0; i < 10_000; i++) {
      const page = JSON.parse(await b.app.feed.page(m.clientId, { after, limit: 7 })) as { data: { id: string }[]; next_cursor: string | null };
      for (const e of page.data) seen.push(e.id);
      after = page.next_cursor ?? undefined;
      if (!writing && page.data.length === 0) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const written = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      writeTx((i % 2 ? b : a).app.db, async (tx) => {
        const id = await outbox.enqueue(tx, m.clientId, null, 'payment.success', { n: i });
        // Hold the transaction open a little: later writers queue behind the counter row.
        await new Promise((r) => setTimeout(r, (i * 7) % 23));
        return id;
      }),
    ),
  );
  writing = false;
  await reader;
  const rows = await a.app.db.selectFrom('events').select(['id', 'seq']).orderBy('seq').execute();
  assert.deepEqual(rows.map((r) => r.seq), Array.from({ length: N }, (_, i) => i + 1), 'numbers 1..N, no gaps');
  assert.deepEqual([...rows.map((r) => r.id)].sort(), [...written].sort());
  assert.deepEqual(seen, rows.map((r) => r.id), 'the reader saw every event once, in seq order');
});

test('every node must hold the same master key: a node started with another one refuses before serving, and changes nothing', async (t) => {
  const shared = { url: await store.database() };
  const a = await startPayd({ config: await store.config(shared) });
  t.after(() => a.close());
  const m = await a.merchant();
  await assert.rejects(
    startPayd({ config: { ...(await store.config(shared)), server: { masterKey: 'another key entirely' } } }),
    (e: Error) => {
      assert.match(e.message, /the master key from server\.masterKey \(fingerprint [0-9a-f]+\) is not the one this database was set up with/);
      return true;
    },
  );
  // The first node's merchant still authenticates: nothing was rewritten.
  const r = await a.api('POST', '/api/v1/intents/create-payment', { body: { amount: 5, currency: 'UPI', order_id: 'k' }, headers: m.headers });
  assert.equal(r.status, 200);
});

test('settle once across nodes: the same payment ingested on two nodes at once (a leader and a CLI settle elsewhere) settles one intent, one payment row, one event', async (t) => {
  const [a, b] = await twoNodes(t);
  const m = await a.merchant();
  const intents = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 ? b : a, m.headers, { amount: 300 + i, currency: 'UPI', order_id: `pay-${i}` })));
  const now = Date.now();
  const outcomes = await Promise.all(
    intents.flatMap((intent, i) =>
      [a, b, a, b].map((node) =>
        node.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: BigInt(Math.round(intent.body.pay_amount * 100)), txRef: `UTR-${i}`, occurredAt: now, observedAt: now, source: 'imap' }),
      ),
    ),
  );
  // Per payment: exactly one of the four ingests settled; the others saw a duplicate.
  for (let i = 0; i < 10; i++) {
    const kinds = outcomes.slice(i * 4, i * 4 + 4).map((o) => o.kind).sort();
    assert.deepEqual(kinds, ['duplicate', 'duplicate', 'duplicate', 'settled'], `payment ${i}`);
  }
  const payments = await a.app.db.selectFrom('payments').select(['tx_ref', 'status']).execute();
  assert.equal(payments.length, 10);
  assert.ok(payments.every((p) => p.status === 'matched'));
  const events = await a.app.db.selectFrom('events').select(['intent_id', 'type']).execute();
  assert.equal(events.length, 10);
  assert.equal(new Set(events.map((e) => e.intent_id)).size, 10);
  for (const intent of intents) assert.equal((await b.app.intents.get(intent.body.intent_id)).status, 'settled');
});

// Three real `payd serve` nodes on one real PostgreSQL, each reaching it through its own
// loopback TCP proxy (test/helpers/tcp-proxy.ts), under steady creates, fetches and payments
// while PostgreSQL is fast-restarted (`pg_ctl restart -m fast`), killed (`kill -9` of the
// postmaster) and started again, and the leader is cut off from it (its proxy frozen: no bytes,
// no reset) for longer than the worker lease. Every request on every node is answered within
// the bound, with success or a clean 503 BUSY with Retry-After, never a 500; every acknowledged
// create is kept; each payment is settled once with one webhook; the cut-off leader stops
// leading and says so on /readyz while another node takes over; and a leader whose lease was
// taken from under it has its write refused by the database.
// TRON payments come from the fake TronGrid (test/fakes/trongrid.ts, recorded shapes).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pgDriver from 'pg';
import { parseDecimal } from '../../src/domain/money.ts';
import { MERCHANT, startFakeTronGrid, txid } from '../fakes/trongrid.ts';
import { logLines, payd, spawnPayd, workdir } from '../helpers/cli.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { waitFor } from '../helpers/wait.ts';

let pg: Postgres;
before(async () => {
  // Crash-safe settings (fsync, synchronous_commit): a commit PostgreSQL acknowledged must
  // survive its kill -9, as on a real server.
  pg = await startPostgres({ durable: true });
});
after(() => pg?.stop());

/** database.statementTimeoutMs of the nodes: their client-side deadline is 1 s more. */
const STATEMENT_TIMEOUT_MS = 2000;
/**
 * The longest any request may take during a fault: the deadline (3 s) of a query on a silent
 * connection, or of opening one, once more for a transaction run again after the database went
 * away, plus a wait for a pooled connection, with room for a loaded 2-core machine.
 */
const ANSWER_BOUND_MS = 10_000;
/** The worker lease's time to live (src/app/workers.ts): the cut lasts longer, so the lease moves. */
const LEASE_TTL_MS = 12_000;

interface Answer {
  node: number;
  phase: string;
  what: 'create' | 'fetch' | 'readyz';
  /** When it was sent (performance.now()). */
  at: number;
  status: number;
  ms: number;
  retryAfter: string | null;
  body: any;
}

test('three nodes under faults: PostgreSQL restarted, killed and cut off from the leader: every answer within the bound, never 500; nothing lost or doubled; the cut-off leader stops leading; a stale leader\'s write is refused', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const grid = await startFakeTronGrid();
  t.after(() => grid.close());
  const dir = workdir(t, {
    server: { port: 0, masterKey: 'pg-faults test master key', publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 }, publicRateLimit: { perSecond: 0, burst: 1 } },
    database: { url: { env: 'PAYD_TEST_DATABASE_URL' }, pool: 4, statementTimeoutMs: STATEMENT_TIMEOUT_MS },
    webhooks: { retrySchedule: [1, 1, 1, 1, 1], timeoutSeconds: 2, allowLoopback: true },
    methods: { USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.2 } },
  });
  const direct = await freshDatabase(pg.url);
  const m = await payd(['merchant', 'create', '--name', 'Shop', '--webhook-url', receiver.url, '--json'], { cwd: dir, env: { PAYD_TEST_DATABASE_URL: direct } });
  assert.equal(m.code, 0, m.err);
  const { client_id, client_secret } = m.json();
  const headers = { 'x-client-id': client_id, 'x-client-secret': client_secret, 'content-type': 'application/json' };

  // Each node through its own proxy, so one can be cut off alone.
  const proxies: TcpProxy[] = [];
  const nodes = await Promise.all(
    [0, 1, 2].map(async () => {
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg.port });
      proxies.push(proxy);
      t.after(() => proxy.close());
      const url = new URL(direct);
      url.port = String(proxy.port);
      const node = await spawnPayd(['serve'], { cwd: dir, env: { PAYD_TEST_DATABASE_URL: url.toString() } });
      t.after(() => node.child.kill('SIGKILL'));
      return { ...node, proxy };
    }),
  );

  let phase = 'steady';
  const answers: Answer[] = [];
  const call = async (node: number, what: Answer['what'], path: string, init: RequestInit = {}): Promise<Answer> => {
    const started = performance.now();
    let a: Answer;
    try {
      const res = await fetch(nodes[node]!.url + path, { ...init, signal: AbortSignal.timeout(60_000) });
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* kept as text: h3's own error pages are not JSON */
      }
      a = { node, phase, what, at: started, status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), body };
    } catch (err) {
      a = { node, phase, what, at: started, status: 0, ms: performance.now() - started, retryAfter: null, body: String(err) };
    }
    answers.push(a);
    return a;
  };
  const readyz = (node: number) => call(node, 'readyz', '/readyz');
  /** What each node logged about its lease, for a failure's message. */
  const leaseLog = () => nodes.map((n, i) => logLines(n.stderr()).filter((l) => /lease|workers/.test(String(l.msg))).map((l) => `node ${i}: ${l.time ?? ''} ${l.msg} ${l.error ?? ''}`).join('\n')).join('\n');

  const roles = await Promise.all(nodes.map(async (_, i) => (await readyz(i)).body.workers));
  assert.deepEqual([...roles].sort(), ['leader', 'standby', 'standby']);

  // Steady load on every node: a create, then a fetch of what it acknowledged.
  const acknowledged: Array<{ id: string; order: string; pay_amount: string; phase: string }> = [];
  let running = true;
  t.after(() => (running = false)); // a failed assertion stops the load too
  let seq = 0;
  const load = async (node: number) => {
    while (running) {
      const n = ++seq;
      const order = `order-${n}`;
      const created = await call(node, 'create', '/api/v1/intents/create-payment', { method: 'POST', headers, body: JSON.stringify({ amount: 1 + (n % 400), currency: 'USDT_TRC20', order_id: order }) });
      if (created.status === 200) {
        acknowledged.push({ id: created.body.intent_id, order, pay_amount: String(created.body.pay_amount), phase });
        await call(node, 'fetch', `/api/v1/intents/${created.body.intent_id}`, { headers });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  // Payments throughout: the exact amount of an acknowledged intent, one transfer each.
  const paid = new Map<string, string>();
  const pay = async () => {
    while (running) {
      const next = acknowledged.find((i) => !paid.has(i.id));
      if (next) {
        const tx = txid();
        paid.set(next.id, tx);
        const value = parseDecimal(next.pay_amount, 6);
        assert.ok(value.ok);
        grid.add({ transaction_id: tx, value: value.minor.toString(), block_timestamp: Date.now() });
      }
      await new Promise((r) => setTimeout(r, 700));
    }
  };
  const loads = [...nodes.map((_, i) => load(i)), pay()];
  const hold = (ms: number) => new Promise((r) => setTimeout(r, ms));

  await hold(3000);
  phase = 'fast restart';
  await pg.restartFast();
  await hold(3000);
  phase = 'kill -9';
  await pg.crashAndStart();
  await hold(3000);

  // The leader cut off from PostgreSQL for longer than its lease: the node leading now (the
  // restarts may have moved the lease), once exactly one does.
  let leader = -1;
  await waitFor(async () => {
    const now = await Promise.all(nodes.map(async (_, i) => (await readyz(i)).body?.workers));
    leader = now.indexOf('leader');
    return leader >= 0 && now.filter((w) => w === 'leader').length === 1;
  }, 30_000, 'one node to lead after the restarts');
  phase = 'partition';
  const cutAt = performance.now();
  nodes[leader]!.proxy.freeze();
  let successor = -1;
  const cutReadyz: Answer[] = [];
  while (performance.now() - cutAt < LEASE_TTL_MS + 4000 || successor < 0) {
    assert.ok(performance.now() - cutAt < 45_000, `no other node took over within 45 s of the cut:\n${leaseLog()}\n${JSON.stringify(answers.filter((a) => a.what === 'readyz').slice(-6))}`);
    const [cut, ...others] = await Promise.all([readyz(leader), ...nodes.map((_, i) => i).filter((i) => i !== leader).map(async (i) => ({ i, a: await readyz(i) }))]);
    cutReadyz.push(cut!);
    const took = others.find((o) => o.a.body?.workers === 'leader');
    if (took && successor < 0) {
      successor = took.i;
      t.diagnostic(`node ${successor} took over ${Math.round(performance.now() - cutAt)} ms after the cut`);
    }
    await hold(1000);
  }
  // Once cut off, the node never claims to lead: /readyz asks the database, which it cannot reach.
  for (const a of cutReadyz.filter((r) => r.at - cutAt > 1000)) assert.ok(!(a.status === 200 && a.body.workers === 'leader'), `the cut-off node still says it leads: ${JSON.stringify(a.body)}`);
  nodes[leader]!.proxy.heal();
  phase = 'healed';
  await waitFor(async () => {
    const a = await readyz(leader);
    return a.status === 200 && a.body.workers === 'standby';
  }, 20_000, 'the healed node to stand by');
  await hold(2000);

  // A stale leader: the lease taken from under the live leader (as by a node it cannot see),
  // just after its renewal, so it still believes it leads for up to one renewal interval. It
  // reads a payment in that time; the database refuses its write, and the payment is settled
  // only by the next real leader, once that other take has run out.
  phase = 'stale leader';
  assert.equal((await readyz(successor)).body.workers, 'leader');
  const db = new pgDriver.Client({ connectionString: direct });
  await db.connect();
  t.after(() => db.end());
  const leaseRow = async () => (await db.query<{ holder: string; expires_at: string }>(`SELECT holder, expires_at FROM worker_lease WHERE name = 'workers'`)).rows[0];
  const staleIntent = await call(successor, 'create', '/api/v1/intents/create-payment', { method: 'POST', headers, body: JSON.stringify({ amount: 777, currency: 'USDT_TRC20', order_id: 'stale-leader' }) });
  assert.equal(staleIntent.status, 200, JSON.stringify(staleIntent.body));
  const lostBefore = (nodes[successor]!.stderr().match(/worker lease lost/g) ?? []).length;
  const renewedFrom = (await leaseRow())!.expires_at;
  await waitFor(async () => (await leaseRow())!.expires_at !== renewedFrom, 10_000, 'the leader to renew its lease');
  const OTHER_TAKE_MS = 8000;
  await db.query(
    `UPDATE worker_lease SET holder = 'a-node-out-of-sight', host = 'elsewhere', pid = 1,
       acquired_at = (extract(epoch from clock_timestamp()) * 1000)::bigint,
       expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + ${OTHER_TAKE_MS}
     WHERE name = 'workers'`,
  );
  const staleTx = txid();
  const staleValue = parseDecimal(String(staleIntent.body.pay_amount), 6);
  assert.ok(staleValue.ok);
  const paidAt = Date.now();
  grid.add({ transaction_id: staleTx, value: staleValue.minor.toString(), block_timestamp: Date.now() });
  paid.set(staleIntent.body.intent_id, staleTx);
  await waitFor(async () => (nodes[successor]!.stderr().match(/worker lease lost/g) ?? []).length > lostBefore, 10_000, 'the stale leader to notice at its next renewal');
  const staleView = await call(successor, 'fetch', `/api/v1/intents/${staleIntent.body.intent_id}`, { headers });
  // Read after the intent: the other take still holds the lease, so no real node has led since.
  assert.equal((await leaseRow())!.holder, 'a-node-out-of-sight', 'the other take ran out before the check; lengthen OTHER_TAKE_MS');
  assert.ok(grid.requests.some((r) => r.at >= paidAt), 'the stale leader read TronGrid after the payment was made');
  assert.notEqual(staleView.body.status, 'settled', 'the stale leader settled a payment while another take held the lease');
  assert.match(nodes[successor]!.stderr(), /is no longer held; the write was refused/, 'the database refused the stale leader\'s write');
  await waitFor(async () => (await Promise.all(nodes.map((_, i) => readyz(i)))).some((a) => a.body.workers === 'leader'), 30_000, 'a real node to lead again');
  running = false;
  await Promise.all(loads);

  // Every request answered within the bound: success or a clean 503 BUSY with Retry-After, never a 500 nor a hang.
  // (/readyz may also answer 503 with its own body while a new leader's source starts.)
  const clean503 = (a: Answer) => a.status === 503 && ((a.body?.code && a.body?.detail && a.retryAfter) || (a.what === 'readyz' && a.body?.status === 'unavailable'));
  const bad = answers.filter((a) => a.status !== 200 && !clean503(a));
  assert.deepEqual(bad.map((a) => ({ phase: a.phase, node: a.node, what: a.what, status: a.status, body: a.body })), [], 'only 200 and clean 503s');
  for (const p of ['steady', 'fast restart', 'kill -9', 'partition', 'healed', 'stale leader']) {
    const during = answers.filter((a) => a.phase === p);
    const worst = Math.max(...during.map((a) => a.ms));
    const busy = during.filter((a) => a.status === 503).length;
    t.diagnostic(`${p}: ${during.length} answers, ${busy} × 503, worst ${Math.round(worst)} ms`);
    assert.ok(worst < ANSWER_BOUND_MS, `${p}: a request took ${Math.round(worst)} ms`);
  }
  const onCut = answers.filter((a) => a.phase === 'partition' && a.node === leader && a.what !== 'readyz');
  assert.ok(onCut.some((a) => a.status === 503), 'the cut-off node answered 503 while cut off');
  assert.ok(cutReadyz.some((a) => a.status === 503 && a.body.code === 'BUSY'), '/readyz of the cut-off node says it cannot reach the database');

  // Nothing lost: every acknowledged create is there, on any node.
  assert.ok(acknowledged.length > 50, `only ${acknowledged.length} creates acknowledged`);
  const ids = new Set(acknowledged.map((i) => i.id));
  assert.equal(ids.size, acknowledged.length, 'one intent per acknowledged create');
  for (const [k, i] of acknowledged.entries()) {
    const res = await fetch(`${nodes[k % 3]!.url}/api/v1/intents/${i.id}`, { headers });
    assert.equal(res.status, 200, `${i.order}, acknowledged during ${i.phase}, is gone`);
    assert.equal(((await res.json()) as any).order_id, i.order);
  }

  // Nothing doubled: each payment settles its intent once, by its own transaction, with one webhook.
  assert.ok(paid.size >= 20, `only ${paid.size} payments made`);
  const settledOf = async (id: string) => (await (await fetch(`${nodes[successor]!.url}/api/v1/intents/${id}`, { headers })).json()) as any;
  await waitFor(async () => {
    for (const id of paid.keys()) if ((await settledOf(id)).status !== 'settled') return false;
    return true;
  }, 60_000, 'every payment to settle');
  for (const [id, tx] of paid) assert.equal((await settledOf(id)).transaction_hash, tx);
  await waitFor(async () => new Set(receiver.received.map((h) => JSON.parse(h.body).data?.intent_id)).size >= paid.size, 60_000, 'a webhook for every settlement');
  await hold(1500); // a second sender would have shown up by now
  const hooks = receiver.received.map((h) => ({ id: String(h.headers['webhook-id']), event: JSON.parse(h.body) }));
  const successes = hooks.filter((h) => h.event.type === 'payment.success');
  const idsByIntent = new Map<string, Set<string>>();
  for (const h of successes) idsByIntent.set(h.event.data.intent_id, (idsByIntent.get(h.event.data.intent_id) ?? new Set()).add(h.id));
  assert.deepEqual([...idsByIntent.keys()].sort(), [...paid.keys()].sort(), 'a payment.success for each payment, none for anything else');
  for (const [id, webhookIds] of idsByIntent) assert.equal(webhookIds.size, 1, `intent ${id}: ${webhookIds.size} different webhooks`);

  assert.match(nodes[leader]!.stderr(), /worker lease lost/);
  for (const n of nodes) n.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all(nodes.map((n) => n.exited)), [0, 0, 0]);
});

// Two real `payd serve` processes on one real PostgreSQL: the API answers on both,
// creates race correctly across them, exactly one runs the workers, a settlement anywhere is
// delivered once and promptly, and the standby takes over after kill -9 of the leader.
// TRON payments come from the fake TronGrid (test/fakes/trongrid.ts, recorded shapes).
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { WebSocket } from 'undici';
import { MERCHANT, startFakeTronGrid, txid, type FakeTronGrid } from '../fakes/trongrid.ts';
import { payd, spawnPayd, workdir } from '../helpers/cli.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

const MASTER_KEY = 'pg-nodes test master key';

function nodeConfig(grid: FakeTronGrid) {
  return {
    server: { port: 0, masterKey: MASTER_KEY, publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 }, publicRateLimit: { perSecond: 0, burst: 1 } },
    // The URL as a secret reference, the way an operator passes it (never on the command line).
    database: { url: { env: 'PAYD_TEST_DATABASE_URL' } },
    webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 2, allowLoopback: true },
    methods: { USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.2 } },
  };
}

const readyz = async (url: string) => {
  const res = await fetch(url + '/readyz');
  return { status: res.status, body: (await res.json()) as any };
};

interface Shop {
  dir: string;
  env: Record<string, string>;
  headers: Record<string, string>;
  grid: FakeTronGrid;
}

async function shop(t: TestContext, webhookUrl: string): Promise<Shop> {
  const grid = await startFakeTronGrid();
  t.after(() => grid.close());
  const dir = workdir(t, nodeConfig(grid));
  const env = { PAYD_TEST_DATABASE_URL: await freshDatabase(pg.url) };
  const m = await payd(['merchant', 'create', '--name', 'Shop', '--webhook-url', webhookUrl, '--json'], { cwd: dir, env });
  assert.equal(m.code, 0, m.err);
  const { client_id, client_secret } = m.json();
  return { dir, env, grid, headers: { 'x-client-id': client_id, 'x-client-secret': client_secret, 'content-type': 'application/json' } };
}

/** A create as a merchant's backend sends it, once: a burst must not meet 503 BUSY, so none is retried here. */
async function create(url: string, s: Shop, body: object): Promise<{ status: number; body: any }> {
  const res = await fetch(url + '/api/v1/intents/create-payment', { method: 'POST', headers: s.headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

async function intentOn(url: string, s: Shop, id: string): Promise<any> {
  const res = await fetch(`${url}/api/v1/intents/${id}`, { headers: s.headers });
  assert.equal(res.status, 200);
  return res.json();
}

/** USDT has 6 decimals: 10.01 → "10010000" (from the decimal text, no float arithmetic). */
const usdtMinor = (amount: number) => {
  const [whole, frac = ''] = String(amount).split('.');
  return (BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, '0'))).toString();
};

test('two nodes on one PostgreSQL: both serve; concurrent creates across them stay correct; one leader delivers each settlement once; kill -9 → the other leads', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const s = await shop(t, receiver.url);
  const both = await Promise.all([spawnPayd(['serve'], { cwd: s.dir, env: s.env }), spawnPayd(['serve'], { cwd: s.dir, env: s.env })]);
  for (const n of both) t.after(() => n.child.kill('SIGKILL'));
  const roles = await Promise.all(both.map(async (n) => (await readyz(n.url)).body.workers));
  assert.deepEqual([...roles].sort(), ['leader', 'standby']);
  const [leader, standby] = roles[0] === 'leader' ? both : [both[1]!, both[0]!];
  await waitFor(async () => /payment source starting/.test(leader!.stderr()), 5_000, 'the leader\'s source to start'); // log lines reach a pipe up to 25 ms late
  assert.doesNotMatch(standby!.stderr(), /payment source starting/);

  // Creates spread over both nodes; each node sees the other's intents.
  const spread = await Promise.all(Array.from({ length: 10 }, (_, i) => create(both[i % 2]!.url, s, { amount: 1 + i, currency: 'USDT_TRC20', order_id: `spread-${i}` })));
  assert.deepEqual(spread.map((r) => r.status), Array(10).fill(200), JSON.stringify(spread.filter((r) => r.status !== 200).map((r) => r.body)));
  for (const [i, r] of spread.entries()) {
    const other = both[(i + 1) % 2]!;
    const res = await fetch(`${other.url}/api/v1/intents/${r.body.intent_id}`, { headers: s.headers });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as any).order_id, `spread-${i}`);
  }

  // 20 identical creates at once, half on each node: one intent.
  const same = await Promise.all(Array.from({ length: 20 }, (_, i) => create(both[i % 2]!.url, s, { amount: 42, currency: 'USDT_TRC20', order_id: 'same-order' })));
  assert.deepEqual(same.map((r) => r.status), Array(20).fill(200), JSON.stringify(same.filter((r) => r.status !== 200).map((r) => r.body)));
  assert.equal(new Set(same.map((r) => r.body.intent_id)).size, 1);

  // 100 creates of one amount at once across both nodes: 100 distinct pay_amounts (50.50 to 51.50 less the whole 51.00).
  const many = await Promise.all(Array.from({ length: 100 }, (_, i) => create(both[i % 2]!.url, s, { amount: 50.5, currency: 'USDT_TRC20', order_id: `many-${i}` })));
  assert.deepEqual(many.map((r) => r.status), Array(100).fill(200), JSON.stringify(many.filter((r) => r.status !== 200).map((r) => r.body)));
  assert.equal(new Set(many.map((r) => String(r.body.pay_amount))).size, 100);
  assert.equal(new Set(many.map((r) => r.body.intent_id)).size, 100);

  // Created on the standby, paid on chain: the leader's source sees it; one webhook.
  const paid = spread[1]!.body; // created on both[1]
  s.grid.add({ transaction_id: txid(), value: usdtMinor(paid.pay_amount), block_timestamp: Date.now() });
  await waitFor(async () => (await intentOn(standby!.url, s, paid.intent_id)).status === 'settled', 15_000, 'the payment to settle');
  const [hook] = await receiver.waitFor(1, 10_000);
  const event = JSON.parse(hook!.body);
  assert.equal(event.type, 'payment.success');
  assert.equal(event.data.intent_id, paid.intent_id);
  await new Promise((r) => setTimeout(r, 1500)); // a second sender would have shown up by now
  assert.equal(receiver.received.length, 1);

  // A manual settlement from the CLI (another process, as on another machine): delivered promptly,
  // and the checkout page open on the standby node hears of it.
  const manual = spread[2]!.body;
  const page = new WebSocket(`${standby!.url.replace('http', 'ws')}/pay/${manual.intent_id}/ws`);
  t.after(() => page.close());
  const states: string[] = [];
  page.addEventListener('message', (e) => states.push(JSON.parse(String(e.data)).status));
  await waitFor(async () => states.length > 0, 5000, 'the checkout socket');
  const t0 = Date.now();
  const settled = await payd(['intents', 'settle', manual.intent_id, '--tx', txid(), '--yes'], { cwd: s.dir, env: s.env });
  assert.equal(settled.code, 0, settled.err);
  const hooks = await receiver.waitFor(2, 10_000);
  const manualMs = hooks[1]!.at - t0;
  assert.equal(JSON.parse(hooks[1]!.body).data.intent_id, manual.intent_id);
  // The goal is one second; generous here because two cores are shared with other test runs.
  assert.ok(manualMs < 3000, `CLI settlement delivered after ${manualMs} ms`);
  t.diagnostic(`CLI settlement → webhook: ${manualMs} ms`);
  await waitFor(async () => states.includes('settled'), 5000, 'the checkout page on the standby to show settled');
  assert.deepEqual(states, ['pending', 'settled']);

  // A cancel on the standby node: the leader sends intent.canceled.
  const c0 = Date.now();
  const cancel = await fetch(`${standby!.url}/api/v1/intents/${spread[3]!.body.intent_id}/cancel`, { method: 'POST', headers: s.headers, body: '{}' });
  assert.equal(cancel.status, 200);
  const third = await receiver.waitFor(3, 10_000);
  assert.equal(JSON.parse(third[2]!.body).type, 'intent.canceled');
  const cancelMs = third[2]!.at - c0;
  t.diagnostic(`cancel on the standby → webhook from the leader: ${cancelMs} ms`);
  assert.ok(cancelMs < 3000, `cancel delivered after ${cancelMs} ms`);

  // kill -9 of the leader, once it has recorded its deliveries (killed between a receiver's 200 and
  // that record, a delivery is sent again by the next leader with the same webhook-id: at least once).
  await waitFor(async () => (await payd(['webhooks', 'list', '--status', 'pending', '--json'], { cwd: s.dir, env: s.env })).json().length === 0, 10_000, 'the deliveries to be recorded');
  leader!.child.kill('SIGKILL');
  await leader!.exited;
  const k0 = Date.now();
  await waitFor(async () => (await readyz(standby!.url)).body.workers === 'leader', 20_000, 'the standby to take over');
  t.diagnostic(`takeover after kill -9: ${Date.now() - k0} ms`);
  const next = spread[4]!.body;
  s.grid.add({ transaction_id: txid(), value: usdtMinor(next.pay_amount), block_timestamp: Date.now() });
  const fourth = await receiver.waitFor(4, 15_000);
  assert.equal(JSON.parse(fourth[3]!.body).data.intent_id, next.intent_id, fourth.map((h) => h.body).join('\n'));
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(receiver.received.length, 4);
  assert.equal(new Set(receiver.received.map((h) => h.headers['webhook-id'])).size, 4);

  standby!.child.kill('SIGTERM');
  assert.equal(await standby!.exited, 0);
});

test('a leader that stops answering (SIGSTOP: alive, not dead) loses the lease by expiry: the standby leads within 20 s and delivers; the old one, resumed, stands down and sends nothing twice', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const s = await shop(t, receiver.url);
  const a = await spawnPayd(['serve'], { cwd: s.dir, env: s.env });
  t.after(() => a.child.kill('SIGKILL'));
  await waitFor(async () => (await readyz(a.url)).body.workers === 'leader', 10_000, 'the first node to lead');
  const b = await spawnPayd(['serve'], { cwd: s.dir, env: s.env });
  t.after(() => b.child.kill('SIGKILL'));
  assert.equal((await readyz(b.url)).body.workers, 'standby');
  const first = await create(b.url, s, { amount: 11, currency: 'USDT_TRC20', order_id: 'frozen-1' });
  const second = await create(b.url, s, { amount: 12, currency: 'USDT_TRC20', order_id: 'frozen-2' });

  // Frozen like a machine that lost its network: its pid lives, so only the lease's expiry frees it.
  a.child.kill('SIGSTOP');
  t.after(() => a.child.kill('SIGCONT'));
  const t0 = Date.now();
  await waitFor(async () => (await readyz(b.url)).body.workers === 'leader', 20_000, 'the standby to take over by expiry');
  const tookMs = Date.now() - t0;
  t.diagnostic(`takeover of a frozen leader: ${tookMs} ms`);
  // Not at once: the frozen holder's lease had to run out (12 s after its last renewal).
  assert.ok(tookMs > 5000, `took over after ${tookMs} ms, before the lease could expire`);

  s.grid.add({ transaction_id: txid(), value: usdtMinor(first.body.pay_amount), block_timestamp: Date.now() });
  const [hook] = await receiver.waitFor(1, 15_000);
  assert.equal(JSON.parse(hook!.body).data.intent_id, first.body.intent_id);

  // Resumed: it finds the lease taken and stops its workers; the next payment is still delivered once.
  a.child.kill('SIGCONT');
  await waitFor(async () => (await readyz(a.url)).body.workers === 'standby', 10_000, 'the resumed node to stand down');
  s.grid.add({ transaction_id: txid(), value: usdtMinor(second.body.pay_amount), block_timestamp: Date.now() });
  const hooks = await receiver.waitFor(2, 15_000);
  assert.equal(JSON.parse(hooks[1]!.body).data.intent_id, second.body.intent_id);
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(receiver.received.length, 2);
  assert.match(a.stderr(), /worker lease lost/);
});

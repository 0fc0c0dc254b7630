// Held payments end to end through the built daemon (bin/payd serve from dist/), for each method family
// with its real source: UPI (DKIM-signed alerts in a real Dovecot, DNS the test runs), TRON (fake
// TronGrid), Solana (fake RPC). Only the API and webhooks are used, as a merchant's backend would;
// every API answer and webhook body is checked against the OpenAPI document. One data directory,
// three runs of the daemon with the policies each phase needs (a restart is how an operator
// changes them): defaults, latePayments "hold", then underpaymentTolerance with a long TTL (also
// where a canceled intent's payment is held and refunded). ~60 s on a quiet machine, most of it
// the daemon's three starts, the two waits past expires_at and the first IMAP alert.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startFakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey, solTransfer } from '../fakes/solana-tx.ts';
import { MERCHANT, STRANGER, startFakeTronGrid, txid } from '../fakes/trongrid.ts';
import { hdfcCredit, signingKit } from '../helpers/bank-alerts.ts';
import { payd, spawnPayd, workdir } from '../helpers/cli.ts';
import { mailboxWithDns, upiDaemonSection } from '../helpers/dovecot.ts';
import { checkedFetch, responseChecker } from '../helpers/openapi.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

/** Intent lifetime in the "late" phases, s: short, so a payment can arrive after expires_at. */
const SHORT_TTL = 3;
const SETTLE_MS = 20_000;

/** A decimal number as the API prints it → minor units (string arithmetic: no float rounding). */
function minor(n: number, decimals: number): bigint {
  const [i, f = ''] = String(n).split('.');
  return BigInt(i + f.padEnd(decimals, '0').slice(0, decimals));
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('held payments end to end through the built daemon: UPI, TRON and Solana', async (t) => {
  const kit = signingKit();
  const { dovecot, dnsServer } = await mailboxWithDns(t, kit.zone);
  const grid = await startFakeTronGrid();
  t.after(() => grid.close());
  const rpc = await startFakeSolanaRpc();
  t.after(() => rpc.close());
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const wallet = newKey();
  const payer = newKey();

  const config = (ttlSeconds: number, policy: Record<string, unknown>, upi: Record<string, unknown> = {}, tron: Record<string, unknown> = {}) => ({
    server: { host: '127.0.0.1', port: 0, publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 }, publicRateLimit: { perSecond: 0, burst: 1 } },
    database: { file: 'data/payd.sqlite' },
    webhooks: { retrySchedule: [0.3, 0.3, 0.3], timeoutSeconds: 2, allowLoopback: true },
    intents: { ttlSeconds },
    methods: {
      UPI: upiDaemonSection(dovecot, dnsServer, { ...policy, ...upi }),
      USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.2, apiKey: 'test-key', ...policy, ...tron },
      SOL: { wallet, rpcUrl: rpc.url, pollSeconds: 0.2, ...policy },
    },
  });
  const dir = workdir(t);
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config(SHORT_TTL, {})));
  const made = await payd(['merchant', 'create', '--name', 'Shop', '--webhook-url', receiver.url, '--json'], { cwd: dir });
  assert.equal(made.code, 0, made.err);
  const other = await payd(['merchant', 'create', '--name', 'Other shop', '--json'], { cwd: dir });
  assert.equal(other.code, 0, other.err);
  const headersOf = (m: { client_id: string; client_secret: string }) => ({ 'x-client-id': m.client_id, 'x-client-secret': m.client_secret, 'content-type': 'application/json' });
  const mine = headersOf(made.json());
  const theirs = headersOf(other.json());

  let daemon: Awaited<ReturnType<typeof spawnPayd>> | undefined;
  t.after(() => daemon?.child.kill('SIGKILL'));
  /** (Re)starts the daemon with this config: SIGTERM, rewrite the file, serve again. */
  const serve = async (c: object) => {
    if (daemon) {
      daemon.child.kill('SIGTERM');
      assert.equal(await daemon.exited, 0, daemon.stderr());
    }
    writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(c));
    daemon = await spawnPayd(['serve'], { cwd: dir });
  };

  /** Every answer is checked against the OpenAPI document (checkedFetch throws otherwise). */
  const api = async (method: string, path: string, body?: unknown, headers = mine) => {
    const res = await checkedFetch()(daemon!.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  let orders = 0;
  const create = async (amount: number, currency: string) => {
    const r = await api('POST', '/api/v1/intents/create-payment', { amount, currency, order_id: `held-e2e-${++orders}` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { intent_id: string; order_id: string; pay_amount: number; reference?: string };
  };
  const get = async (id: string) => {
    const r = await api('GET', `/api/v1/intents/${id}`);
    assert.equal(r.status, 200);
    return r.body;
  };
  const act = (id: string, tx: string, verb: 'accept' | 'refunded', headers = mine) => api('POST', `/api/v1/intents/${id}/payments/${encodeURIComponent(tx)}/${verb}`, undefined, headers);
  const cancel = async (id: string) => assert.equal((await api('POST', `/api/v1/intents/${id}/cancel`)).status, 200);

  /** The webhooks the merchant received about an intent: each signed (Standard Webhooks) and as the document says. */
  const signing = new Webhook(made.json().webhook_secret);
  const hooks = (id: string) =>
    receiver.received
      .map((h) => signing.verify(h.body, { 'webhook-id': String(h.headers['webhook-id']), 'webhook-timestamp': String(h.headers['webhook-timestamp']), 'webhook-signature': String(h.headers['webhook-signature']) }) as { type: string; data: any })
      .filter((b) => b.data?.intent_id === id)
      .map((b) => {
        assert.equal(responseChecker().checkWebhook(b), undefined);
        return b;
      });
  const hook = (id: string, type: string) => waitFor(async () => hooks(id).find((h) => h.type === type), SETTLE_MS, `${type} for ${id}`);

  // How each family's customer pays an intent's pay_amount (or any other amount).
  let utr = 632612350000;
  const payUpi = async (rupees: number) => {
    const ref = String(++utr);
    await dovecot.append(await kit.sign(hdfcCredit({ rupees: rupees.toFixed(2), utr: ref, account: '4321' })));
    return ref;
  };
  const payTron = (amount: number) => grid.add({ transaction_id: txid(), from: STRANGER, value: String(minor(amount, 6)), block_timestamp: Date.now() }).transaction_id;
  const paySol = (lamports: bigint, reference?: string) => rpc.add(solTransfer({ from: payer, to: wallet, lamports, reference }));
  const payExact = (i: { pay_amount: number; reference?: string }, method: string) =>
    method === 'UPI' ? payUpi(i.pay_amount) : method === 'USDT_TRC20' ? payTron(i.pay_amount) : paySol(minor(i.pay_amount, 9), i.reference);
  // Prices far apart (reserved pay_amounts stay reserved across phases), so no short-payment
  // window of the last phase ever covers two intents.
  const PRICES: Record<string, Record<string, number>> = {
    late: { UPI: 250, USDT_TRC20: 30, SOL: 0.2 },
    canceled: { UPI: 150, USDT_TRC20: 40, SOL: 0.4 },
    hold: { UPI: 350, USDT_TRC20: 50, SOL: 0.6 },
  };
  const METHODS = ['UPI', 'USDT_TRC20', 'SOL'];

  await t.test('default policy: a late exact payment settles its expired intent, payment.success says late: true', async () => {
    await serve(config(SHORT_TTL, {}));
    const late = Object.fromEntries(await Promise.all(METHODS.map(async (m) => [m, await create(PRICES.late[m], m)] as const)));
    await sleep(SHORT_TTL * 1000 + 1500); // past expires_at (block times are whole seconds)
    const sent: Record<string, string> = {};
    for (const m of METHODS) sent[m] = await payExact(late[m], m);
    for (const m of METHODS) {
      const id = late[m].intent_id;
      const success = await hook(id, 'payment.success');
      assert.equal(success.data.late, true, m);
      const f = await get(id);
      assert.equal(f.status, 'settled', m);
      assert.equal(f.amount_received, late[m].pay_amount, m);
      assert.deepEqual(f.payments.map((x: any) => [x.status, x.reason, x.amount]), [['credited', 'late', late[m].pay_amount]], m);
      // The reference the customer's payment was sent with: the UTR, the TRON txid, the Solana signature.
      assert.equal(f.transaction_hash, sent[m], m);
      assert.equal(f.payments[0].transaction_hash, sent[m], m);
      assert.equal(success.data.transaction_hash, sent[m], m);
    }
  });

  await t.test('latePayments "hold": a late exact payment is held (payment.held), accepted over the API → one payment.success with accepted: true', async () => {
    await serve(config(SHORT_TTL, { latePayments: 'hold' }));
    const intents = Object.fromEntries(await Promise.all(METHODS.map(async (m) => [m, await create(PRICES.hold[m], m)] as const)));
    await sleep(SHORT_TTL * 1000 + 1500);
    const sent: Record<string, string> = {};
    for (const m of METHODS) sent[m] = await payExact(intents[m], m);
    for (const m of METHODS) {
      const id = intents[m].intent_id;
      const held = await hook(id, 'payment.held');
      assert.deepEqual(held.data, { intent_id: id, order_id: intents[m].order_id, currency: m, transaction_hash: sent[m], amount: intents[m].pay_amount, pay_amount: intents[m].pay_amount, reason: 'late' }, m);
      const f = await get(id);
      assert.equal(f.status, 'expired', m);
      assert.equal(f.amount_received, 0, m);
      assert.deepEqual(f.payments.map((x: any) => [x.status, x.reason]), [['held', 'late']], m);
      assert.equal((await act(id, held.data.transaction_hash, 'accept', theirs)).status, 404, m);
      const accepted = await act(id, held.data.transaction_hash, 'accept');
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(accepted.body.status, 'settled', m);
      assert.equal(accepted.body.transaction_hash, held.data.transaction_hash, m);
      assert.equal(accepted.body.amount_received, intents[m].pay_amount, m);
      // Idempotent: the same answer, and still one settlement.
      const again = await act(id, held.data.transaction_hash, 'accept');
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, accepted.body);
      const success = await hook(id, 'payment.success');
      assert.equal(success.data.accepted, true, m);
      assert.equal(success.data.late, true, m);
    }
    // Give a duplicate time to show up: each intent was told of its settlement once.
    await sleep(1000);
    for (const m of METHODS) assert.equal(hooks(intents[m].intent_id).filter((h) => h.type === 'payment.success').length, 1, m);
  });

  await t.test('underpaymentTolerance 1%: ₹499.00 for ₹499.37 settles (underpaid_by), a short payment outside it is held; Solana parts accumulate, an over-payment settles', async () => {
    // A long TTL: nothing here is late. The attribution window is widened to 2 so the bare price
    // lies in it whatever offset the pay_amount got.
    await serve(config(600, { underpaymentTolerance: '1%', attributionWindow: 2 }));
    const inside = await create(499.37, 'UPI');
    const outside = await create(20, 'UPI');
    const usdt = await create(25.01, 'USDT_TRC20');
    const parts = await create(0.3, 'SOL');
    assert.ok(parts.reference);
    await payUpi(499);
    const shortUpi = Math.round(outside.pay_amount * 100 - 90) / 100; // 0.90 short: in the window, over 1% of ~₹20
    await payUpi(shortUpi);
    await payTron(24);
    const total = minor(parts.pay_amount, 9);
    const first = paySol(total / 2n, parts.reference);

    const success = await hook(inside.intent_id, 'payment.success');
    assert.equal(success.data.underpaid_by, Math.round(inside.pay_amount * 100 - 49900) / 100);
    const f = await get(inside.intent_id);
    assert.equal(f.status, 'settled');
    assert.equal(f.amount_received, 499);
    assert.deepEqual(f.payments.map((x: any) => [x.amount, x.status, x.reason]), [[499, 'credited', 'underpaid']]);

    for (const [i, amount] of [[outside, shortUpi], [usdt, 24]] as const) {
      const held = await hook(i.intent_id, 'payment.held');
      assert.deepEqual([held.data.amount, held.data.reason], [amount, 'underpaid']);
      const g = await get(i.intent_id);
      assert.equal(g.status, 'pending');
      assert.equal(g.amount_received, 0);
      assert.deepEqual(g.payments.map((x: any) => [x.amount, x.status, x.reason]), [[amount, 'held', 'underpaid']]);
    }

    // Solana: half, then the rest with the same reference; settled on the second, told once.
    await waitFor(async () => (await get(parts.intent_id)).payments.length === 1, SETTLE_MS, 'the first part to be credited');
    let s = await get(parts.intent_id);
    assert.equal(s.status, 'pending');
    assert.deepEqual(s.payments.map((x: any) => [x.transaction_hash, x.status]), [[first, 'credited']]);
    assert.equal(s.amount_received, Number(total / 2n) / 1e9);
    assert.equal(hooks(parts.intent_id).length, 0, 'no webhook for a part');
    const second = paySol(total - total / 2n, parts.reference);
    const done = await hook(parts.intent_id, 'payment.success');
    assert.equal(done.data.transaction_hash, second);
    s = await get(parts.intent_id);
    assert.equal(s.status, 'settled');
    assert.equal(s.transaction_hash, second);
    assert.equal(s.amount_received, parts.pay_amount);
    assert.deepEqual(s.payments.map((x: any) => [x.transaction_hash, x.status]), [[first, 'credited'], [second, 'credited']]);
    await sleep(500);
    assert.deepEqual(hooks(parts.intent_id).map((h) => h.type), ['payment.success']);

    // An over-payment with the reference settles and is shown for the merchant to refund the rest.
    const over = await create(0.9, 'SOL');
    const extra = 100_000_000n;
    const sig = paySol(minor(over.pay_amount, 9) + extra, over.reference);
    assert.equal((await hook(over.intent_id, 'payment.success')).data.transaction_hash, sig);
    const o = await get(over.intent_id);
    assert.equal(o.status, 'settled');
    assert.equal(o.amount_received, Number(minor(over.pay_amount, 9) + extra) / 1e9);
    assert.deepEqual(o.payments.map((x: any) => [x.transaction_hash, x.status, x.reason]), [[sig, 'credited', 'overpaid']]);
  });

  await t.test('a payment to a canceled intent is held (payment.held), then marked refunded (payment.refunded); another merchant gets 404', async () => {
    // Same daemon as the tolerance phase (a long TTL: the cancel never races expiry).
    const canceled = Object.fromEntries(await Promise.all(METHODS.map(async (m) => [m, await create(PRICES.canceled[m], m)] as const)));
    for (const m of METHODS) await cancel(canceled[m].intent_id);
    const sent: Record<string, string> = {};
    for (const m of METHODS) sent[m] = await payExact(canceled[m], m);
    for (const m of METHODS) {
      const c = canceled[m].intent_id;
      const held = await hook(c, 'payment.held');
      assert.equal(held.data.reason, 'canceled', m);
      assert.equal(held.data.transaction_hash, sent[m], m);
      assert.equal(held.data.amount, canceled[m].pay_amount, m);
      const g = await get(c);
      assert.equal(g.status, 'canceled', m);
      assert.equal(g.amount_received, 0);
      assert.deepEqual(g.payments.map((x: any) => [x.transaction_hash, x.status, x.reason]), [[held.data.transaction_hash, 'held', 'canceled']], m);
      // Another merchant cannot see or resolve it.
      const foreign = await act(c, held.data.transaction_hash, 'refunded', theirs);
      assert.equal(foreign.status, 404, m);
      assert.equal(foreign.body.code, 'INTENT_NOT_FOUND');
      assert.equal((await act(c, held.data.transaction_hash, 'accept', theirs)).status, 404, m);
      assert.equal((await api('GET', `/api/v1/intents/${c}`, undefined, theirs)).status, 404, m);
      const refunded = await act(c, held.data.transaction_hash, 'refunded');
      assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
      assert.deepEqual(refunded.body.payments.map((x: any) => [x.status, x.reason]), [['refunded', 'canceled']], m);
      const told = await hook(c, 'payment.refunded');
      assert.deepEqual(told.data, { ...held.data });
      assert.equal(refunded.body.status, 'canceled');
      const late = await act(c, held.data.transaction_hash, 'accept');
      assert.deepEqual([late.status, late.body.code], [409, 'PAYMENT_NOT_ACCEPTABLE'], m);
    }

    // Graceful stop at the end, as systemd would.
    daemon!.child.kill('SIGTERM');
    assert.equal(await daemon!.exited, 0);
    daemon = undefined;
  });
});

/**
 * The EVM family through the real app against a real node (anvil, test/helpers/anvil.ts) behind
 * a loopback JSON-RPC proxy (test/fakes/evm-proxy.ts): real ERC-20 transfers signed by viem,
 * `finalized` moving with the mined blocks, a reorganisation by `anvil_reorg`.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import type { Address } from 'viem';
import { MERCHANT, OTHER_KEY, startAnvil, type Anvil } from '../helpers/anvil.ts';
import { startEvmProxy, type EvmProxy, type ProxyOptions, type RangeRefusal } from '../fakes/evm-proxy.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

const BASE_CHAIN_ID = 8453;
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
let node: Anvil;
let usdc: Address;
let other: Address;

before(async () => {
  node = await startAnvil(BASE_CHAIN_ID);
  usdc = await node.deployToken('USDC', 6);
  other = await node.deployToken('FAKE', 6);
});
after(() => node?.stop());

async function proxy(t: TestContext, o: ProxyOptions = {}): Promise<EvmProxy> {
  const p = await startEvmProxy(node.url, o);
  t.after(() => p.close());
  return p;
}

async function payd(t: TestContext, section: Record<string, unknown>, store?: TestStore, config: Record<string, unknown> = {}): Promise<PaydHarness> {
  const p = await startPayd({
    workers: true,
    sources: 'configured',
    ...(store ? { store } : {}),
    config: { ...config, methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: undefined, USDC_BASE: { address: MERCHANT, contract: usdc, pollSeconds: 0.2, backfillBlocks: 0, ...section } } },
  });
  t.after(() => p.close());
  return p;
}

/** Creates an intent and reads what the payer is asked for from its EIP-681 link. */
async function intent(p: PaydHarness, order: string, amount = 10) {
  const m = await p.merchant();
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'USDC_BASE', order_id: order }, headers: m.headers });
  assert.equal(r.status, 200, r.text);
  const uri = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(r.body.payment_uri);
  assert.ok(uri, r.body.payment_uri);
  assert.equal(uri[1]!.toLowerCase(), usdc.toLowerCase());
  assert.equal(Number(uri[2]), BASE_CHAIN_ID);
  assert.equal(uri[3], MERCHANT);
  return { id: r.body.intent_id as string, due: BigInt(uri[4]!), body: r.body };
}

const status = async (p: PaydHarness, id: string) => (await p.app.intents.get(id)).status;
const getLogs = (x: EvmProxy) => x.calls.filter((c) => c.method === 'eth_getLogs');
/** Waits until the scan has read the head `n` more times: that many polls went by. */
async function polls(x: EvmProxy, n: number): Promise<void> {
  const heads = () => x.calls.filter((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized').length;
  const from = heads();
  await waitFor(async () => heads() >= from + n, 20_000, `${n} polls`);
}

forEachStore((store) => {
  test('an exact USDC payment settles once, only after its block is final; another token and a failed transfer to the same address count for nothing', async (t) => {
    const x = await proxy(t);
    const p = await payd(t, { rpcUrl: x.url }, store);
    // Each test pays its own amount: the node (and its history) is shared by the file's tests.
    const { id, due, body } = await intent(p, 'exact', store.kind === 'sqlite' ? 11 : 12);
    assert.equal(Math.round(body.pay_amount * 100) * 10_000, Number(due));
    await polls(x, 2);

    // Another token, same amount, same address; and a USDC transfer that reverts (more than the sender holds).
    await node.transfer(other, MERCHANT, due);
    const failed = await node.transfer(usdc, MERCHANT, due, OTHER_KEY);
    assert.equal(failed.status, '0x0');
    const paid = await node.transfer(usdc, MERCHANT, due);
    // `finalized` is two blocks under the newest: the payment's block is not final yet.
    await polls(x, 3);
    assert.equal(await status(p, id), 'pending', 'settled before its block was final');
    assert.equal((await p.app.payments.list({})).length, 0);

    await node.mine(2);
    await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'settlement after finality');
    const settled = await p.app.intents.get(id);
    assert.equal(settled.transaction_hash, paid.hash);
    await node.mine(3);
    await polls(x, 3);
    const payments = await p.app.payments.list({});
    assert.equal(payments.length, 1, JSON.stringify(payments));
    assert.equal(payments[0].amount.text, String(body.pay_amount));
    assert.match(payments[0].tx_ref, new RegExp(`^${paid.hash}:\\d+$`));
    // Every getLogs named the token contracts and the recipient: never a topic-only scan.
    for (const c of getLogs(x)) {
      assert.ok(Array.isArray(c.params[0].address) && c.params[0].address.length > 0);
      assert.equal(c.params[0].topics[2][0], '0x' + MERCHANT.slice(2).toLowerCase().padStart(64, '0'));
    }
  });
});

// The money paths a store could change (ledger rows, held payments, a reorganised block), on both stores;
// PostgreSQL's intents pay other amounts (`offset`), the node being shared by the file's tests.
forEachStore((store) => {
  const offset = store.kind === 'sqlite' ? 0 : 50;
  test('a provider that reports a Transfer log of a failed transaction, or a log marked removed, settles nothing', async (t) => {
    const x = await proxy(t);
    const p = await payd(t, { rpcUrl: x.url }, store);
    const { id, due } = await intent(p, 'forged', 16 + offset);
    await polls(x, 1);
    const failed = await node.transfer(usdc, MERCHANT, due, OTHER_KEY);
    assert.equal(failed.status, '0x0');
    const elsewhere = await node.transfer(other, MERCHANT, due);
    const transferLog = async (tx: { hash: string; block: bigint }, extra: Record<string, unknown> = {}) => ({
      address: usdc.toLowerCase(),
      topics: [TRANSFER, '0x' + '00'.repeat(12) + '22'.repeat(20), '0x' + MERCHANT.slice(2).toLowerCase().padStart(64, '0')],
      data: '0x' + due.toString(16).padStart(64, '0'),
      blockNumber: '0x' + tx.block.toString(16),
      blockHash: (await node.rpc<{ hash: string }>('eth_getBlockByNumber', ['0x' + tx.block.toString(16), false])).hash,
      transactionHash: tx.hash,
      transactionIndex: '0x0',
      logIndex: '0x7',
      removed: false,
      ...extra,
    });
    // The failed transfer's log as if it had succeeded; a real successful transaction's log, marked removed.
    x.options.extraLogs = [await transferLog(failed), await transferLog(elsewhere, { removed: true })];
    await node.mine(3);
    await polls(x, 4);
    assert.equal(await status(p, id), 'pending');
    assert.equal((await p.app.payments.list({})).length, 0);
    // The same intent still settles from a real payment.
    const paid = await node.transfer(usdc, MERCHANT, due);
    await node.mine(3);
    await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'the real payment to settle');
    assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
  });

  test('a short USDC payment is held on its intent as underpaid, and one within the tolerance settles it', async (t) => {
    const x = await proxy(t);
    const p = await payd(t, { rpcUrl: x.url, underpaymentTolerance: '1%', attributionWindow: 2 }, store);
    const m = await p.merchant();
    const create = async (order: string, amount: number) => (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'USDC_BASE', order_id: order }, headers: m.headers })).body;
    const short = await create('short', 31 + offset);
    const near = await create('near', 41 + offset);
    await polls(x, 1);
    // 30.00 for 31.01: outside 1 %; 40.80 for 41.01: inside it (80.00 for 81.01 and 90.80 for 91.01 on PostgreSQL).
    await node.transfer(usdc, MERCHANT, BigInt(30 + offset) * 1_000_000n);
    const inside = await node.transfer(usdc, MERCHANT, BigInt(40 + offset) * 1_000_000n + 800_000n);
    await node.mine(3);
    await waitFor(async () => (await status(p, near.intent_id)) === 'settled', 20_000, 'the payment within tolerance to settle');
    const held = await waitFor(async () => {
      const f = (await p.api('GET', `/api/v1/intents/${short.intent_id}`, { headers: m.headers })).body;
      return f.payments?.length ? f : undefined;
    }, 20_000, 'the short payment to be held');
    assert.equal(held.status, 'pending');
    assert.deepEqual(held.payments.map((x: any) => [x.amount, x.status, x.reason]), [[30 + offset, 'held', 'underpaid']]);
    const settled = (await p.api('GET', `/api/v1/intents/${near.intent_id}`, { headers: m.headers })).body;
    assert.equal(settled.transaction_hash, inside.hash);
    assert.equal(settled.amount_received, 40.8 + offset);
  });

  test('a payment in a block a reorganisation removes never settles, not even from a provider still serving its log; the payment made again settles', async (t) => {
    const x = await proxy(t);
    const p = await payd(t, { rpcUrl: x.url }, store);
    const { id, due } = await intent(p, 'reorg', 13 + offset);
    await polls(x, 1);
    const first = await node.transfer(usdc, MERCHANT, due);
    const [stale] = await node.rpc<Record<string, unknown>[]>('eth_getLogs', [{ fromBlock: '0x' + first.block.toString(16), toBlock: '0x' + first.block.toString(16), address: usdc }]);
    assert.equal(stale!.transactionHash, first.hash);
    // The block holding it is replaced by an empty one before it is final; anvil drops its transaction.
    await node.rpc('anvil_reorg', [1, []]);
    assert.equal(await node.rpc('eth_getTransactionReceipt', [first.hash]), null);
    // A provider on the old fork keeps answering with the replaced block's log.
    x.options.extraLogs = [stale!];
    const again = await node.transfer(usdc, MERCHANT, due);
    await node.mine(3);
    await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'the second payment to settle');
    await node.mine(3);
    await polls(x, 3);
    const hashes = (await p.app.payments.list({})).map((r: { tx_ref: string }) => r.tx_ref.split(':')[0]);
    assert.deepEqual(hashes, [again.hash]);
    assert.equal((await p.app.intents.get(id)).transaction_hash, again.hash);
  });

  test('a payment after its intent expired is held as late under latePayments "hold", never settled by itself', async (t) => {
    const x = await proxy(t);
    const p = await payd(t, { rpcUrl: x.url, latePayments: 'hold' }, store, { intents: { ttlSeconds: 1 } });
    const m = await p.merchant();
    const body = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 19 + offset, currency: 'USDC_BASE', order_id: 'late' }, headers: m.headers })).body;
    const id = body.intent_id as string;
    const due = BigInt(/uint256=(\d+)$/.exec(body.payment_uri)![1]!);
    await polls(x, 1);
    // Paid once the intent has expired. anvil's block time can trail the wall clock by seconds: the
    // payment's block is stamped two seconds past expires_at, as a chain would stamp a late payment.
    await waitFor(async () => Date.now() > Date.parse(body.expires_at) + 1000, 10_000, 'the intent to expire');
    await node.rpc('evm_setNextBlockTimestamp', [Math.ceil(Math.max(Date.now(), Date.parse(body.expires_at)) / 1000) + 2]);
    const paid = await node.transfer(usdc, MERCHANT, due);
    const block = await node.rpc<{ timestamp: string }>('eth_getBlockByNumber', ['0x' + paid.block.toString(16), false]);
    assert.ok(Number(BigInt(block.timestamp)) * 1000 > Date.parse(body.expires_at), 'the payment\'s block is after expires_at');
    await node.mine(3);
    const held = await waitFor(async () => {
      const f = (await p.api('GET', `/api/v1/intents/${id}`, { headers: m.headers })).body;
      return f.payments?.length ? f : undefined;
    }, 20_000, 'the late payment to be held');
    assert.notEqual(held.status, 'settled');
    assert.deepEqual(held.payments.map((x: any) => [x.amount, x.status, x.reason]), [[body.pay_amount, 'held', 'late']]);
    assert.equal(held.transaction_hash, null);
    assert.match((await p.app.payments.list({}))[0].tx_ref, new RegExp(`^${paid.hash}:\\d+$`));
  });
});

// Each provider's wording (test/fixtures/chains/REAL-EVM.md §1): Alchemy's, from a provider that also
// refuses topic-only filters; Infura's bare results cap says no size (the scan halves); the others state their cap.
const REFUSALS: [RangeRefusal, number][] = [['alchemy', 14], ['infura-results', 15], ['infura-cap', 25], ['quicknode', 35]];
for (const [shape, amount] of REFUSALS) {
  test(`getLogs ranges above 3 blocks refused as ${shape} words it${shape === 'alchemy' ? ', topic-only filters refused' : ''}: the scan narrows until its ranges fit and misses nothing`, async (t) => {
    const x = await proxy(t, { refusal: shape, refuseTopicOnly: shape === 'alchemy' });
    const p = await payd(t, { rpcUrl: x.url });
    const { id, due } = await intent(p, `narrow-${shape}`, amount);
    await polls(x, 1);
    x.options.maxRange = 3;
    // A backlog: 30 blocks become final at once, the payment in the middle of them.
    await node.mine(12);
    const paid = await node.transfer(usdc, MERCHANT, due);
    await node.mine(18);
    await waitFor(async () => (await status(p, id)) === 'settled', 30_000, 'settlement through narrow ranges');
    assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
    assert.ok(x.refused >= 1, 'the provider refused a range');
    await polls(x, 2); // the rest of the backlog, after the payment's block
    const span = (c: { params: any[] }) => BigInt(c.params[0].toBlock) - BigInt(c.params[0].fromBlock) + 1n;
    const calls = getLogs(x);
    let lastWide = calls.length - 1;
    while (lastWide >= 0 && span(calls[lastWide]!) <= 3n) lastWide--;
    const served = calls.slice(lastWide + 1);
    assert.ok(x.refused <= 5, `${x.refused} refusals: a refusal narrows for good`);
    assert.ok(served.length >= 8, `${served.length} ranges`);
    // Contiguous: each range starts where the one before ended.
    for (let i = 1; i < served.length; i++) assert.equal(BigInt(served[i]!.params[0].fromBlock), BigInt(served[i - 1]!.params[0].toBlock) + 1n);
  });
}

test('an idle chain costs nothing: no request while no intent is open; the first intent starts the scan', async (t) => {
  const x = await proxy(t);
  const p = await payd(t, { rpcUrl: x.url });
  // Each completed poll stamps the source's last_ok_at (/readyz): count five of them.
  const seen = new Set<string>();
  await waitFor(async () => {
    const r = (await (await fetch(p.url + '/readyz')).json()) as any;
    const at = r.sources?.USDC_BASE?.last_ok_at;
    if (at) seen.add(at);
    return seen.size >= 5;
  }, 20_000, 'five idle polls');
  assert.deepEqual(x.calls, [], 'an idle chain asked its provider something');
  // An intent opens: the next poll reads the chain, and a payment settles as usual.
  const { id, due } = await intent(p, 'wakes', 17);
  await polls(x, 1);
  const paid = await node.transfer(usdc, MERCHANT, due);
  await node.mine(3);
  await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'settlement after the chain woke');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
});

test('a USDC intent priced in USD is quoted 1:1 at the peg and settles from the transfer its EIP-681 link asks for', async (t) => {
  const x = await proxy(t);
  const p = await payd(t, { rpcUrl: x.url });
  const m = await p.merchant();
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { price: { amount: 18.5, currency: 'USD' }, currency: 'USDC_BASE', order_id: 'priced' }, headers: m.headers });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual([r.body.amount, r.body.price, r.body.quote.rate, r.body.quote.source], [18.5, { amount: 18.5, currency: 'USD' }, 1, 'peg']);
  const due = BigInt(/uint256=(\d+)$/.exec(r.body.payment_uri)![1]!);
  assert.equal(due, BigInt(Math.round(r.body.pay_amount * 100)) * 10_000n);
  await polls(x, 1);
  const paid = await node.transfer(usdc, MERCHANT, due);
  await node.mine(3);
  await waitFor(async () => (await status(p, r.body.intent_id)) === 'settled', 20_000, 'the priced intent to settle');
  const settled = (await p.api('GET', `/api/v1/intents/${r.body.intent_id}`, { headers: m.headers })).body;
  assert.equal(settled.transaction_hash, paid.hash);
  assert.equal(settled.amount_received, r.body.pay_amount);
  assert.deepEqual([settled.price, settled.quote], [r.body.price, r.body.quote]);
});

test('a contract whose decimals differ from the config is never read: a dust transfer of an 18-decimal token settles nothing, /readyz and the doctor say why', async (t) => {
  // The operator put an 18-decimal token where 6 are configured: 10.01 "USDC" would be 10,010,000 wei of it.
  const wide = await node.deployToken('WIDE', 18);
  const x = await proxy(t);
  const p = await payd(t, { rpcUrl: x.url, contract: wide });
  const m = await p.merchant();
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 15, currency: 'USDC_BASE', order_id: 'wide' }, headers: m.headers });
  assert.equal(r.status, 200, r.text);
  const due = BigInt(/uint256=(\d+)$/.exec(r.body.payment_uri)![1]!);
  await node.transfer(wide, MERCHANT, due);
  await node.mine(3);
  const down = await waitFor(async () => {
    const body = (await (await fetch(p.url + '/readyz')).json()) as any;
    return /reports 18 decimals, the config says 6/.test(body.sources?.USDC_BASE?.last_error ?? '') && body;
  }, 20_000, '/readyz to name the decimals mismatch');
  assert.equal(down.sources.USDC_BASE.state !== 'ok', true, JSON.stringify(down));
  assert.equal(getLogs(x).length, 0, 'no log read under the wrong decimals');
  assert.equal(await status(p, r.body.intent_id), 'pending');
  assert.equal((await p.app.payments.list({})).length, 0);
  const line = (await p.app.doctor.run()).find((l) => /USDC_BASE/.test(l.what));
  assert.ok(line && !line.ok && /reports 18 decimals, the config says 6/.test(line.message), JSON.stringify(line));
});

test('an endpoint on another chain is never read: its transfers settle nothing, /readyz and the doctor name the chain it serves', async (t) => {
  const x = await proxy(t);
  // USDC on Ethereum (chain 1) pointed at a Base node by mistake.
  const p = await startPayd({
    workers: true,
    sources: 'configured',
    config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: undefined, USDC_ETH: { address: MERCHANT, contract: usdc, rpcUrl: x.url, pollSeconds: 0.2, backfillBlocks: 0 } } },
  });
  t.after(() => p.close());
  const m = await p.merchant();
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 18, currency: 'USDC_ETH', order_id: 'wrong-chain' }, headers: m.headers });
  assert.equal(r.status, 200, r.text);
  assert.match(r.body.payment_uri, /@1\/transfer/);
  const due = BigInt(/uint256=(\d+)$/.exec(r.body.payment_uri)![1]!);
  await node.transfer(usdc, MERCHANT, due);
  await node.mine(3);
  await waitFor(async () => {
    const body = (await (await fetch(p.url + '/readyz')).json()) as any;
    return /serves chain 8453, not 1/.test(body.sources?.USDC_ETH?.last_error ?? '');
  }, 20_000, '/readyz to name the wrong chain');
  assert.equal(getLogs(x).length, 0, 'no log read from another chain');
  assert.equal(await status(p, r.body.intent_id), 'pending');
  assert.equal((await p.app.payments.list({})).length, 0);
  const line = (await p.app.doctor.run()).find((l) => /USDC_ETH/.test(l.what));
  assert.ok(line && !line.ok && /serves chain 8453, not 1/.test(line.message), JSON.stringify(line));
});

/** Waits until the scan has asked for the newest block `n` more times (the depth rule's head). */
async function depthPolls(x: EvmProxy, n: number): Promise<void> {
  const heads = () => x.calls.filter((c) => c.method === 'eth_blockNumber').length;
  const from = heads();
  await waitFor(async () => heads() >= from + n, 20_000, `${n} polls`);
}

test('confirmations.blocks: a payment settles only once that many blocks are on top of it, whatever the node calls final', async (t) => {
  const x = await proxy(t);
  const p = await payd(t, { rpcUrl: x.url, confirmations: { blocks: 6 } });
  const { id, due } = await intent(p, 'depth', 26);
  await depthPolls(x, 1);
  const paid = await node.transfer(usdc, MERCHANT, due);
  // Four blocks on top: `finalized` (two under the newest) has passed it, six confirmations have not.
  await node.mine(4);
  await depthPolls(x, 3);
  assert.equal(await status(p, id), 'pending', 'settled before six confirmations');
  assert.equal(x.calls.filter((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized').length, 0, 'the depth rule asks no tag');
  await node.mine(2);
  await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'settlement at six confirmations');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
});

// Last in the file: the chain's depth is mined in one go, which moves anvil's clock ahead of the wall's.
for (const answer of ['error', 'null'] as const) {
  test(`a node that answers \`finalized\` with ${answer === 'null' ? 'null' : 'an error'}: the chain's depth rule (Base: 900 blocks) holds the payment until it is that deep`, async (t) => {
    const x = await proxy(t, { finalizedTag: answer });
    const p = await payd(t, { rpcUrl: x.url });
    const { id, due } = await intent(p, `no-tag-${answer}`, answer === 'null' ? 27 : 28);
    await polls(x, 1);
    const paid = await node.transfer(usdc, MERCHANT, due);
    await node.mine(100);
    await polls(x, 3);
    assert.equal(await status(p, id), 'pending', 'settled before the fallback depth');
    await node.mine(800);
    await waitFor(async () => (await status(p, id)) === 'settled', 30_000, 'settlement at the chain\'s depth');
    assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
  });
}

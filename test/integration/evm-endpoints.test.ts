/**
 * No single EVM endpoint moves money: with two endpoints for a chain, a Transfer log settles only
 * once the second endpoint holds the same log (transaction, log index, token, recipient, value,
 * block) in a block it calls final. Real anvil node; each endpoint a loopback JSON-RPC proxy
 * (test/fakes/evm-proxy.ts), one of which lies or lags.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import type { Address } from 'viem';
import { MERCHANT, startAnvil, type Anvil } from '../helpers/anvil.ts';
import { startEvmProxy, type EvmProxy, type ProxyOptions } from '../fakes/evm-proxy.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { recordingLogger } from '../helpers/solana-ledger.ts';
import { waitFor } from '../helpers/wait.ts';

const POLYGON_CHAIN_ID = 137;
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
let node: Anvil;
let usdt: Address;
let other: Address;

before(async () => {
  node = await startAnvil(POLYGON_CHAIN_ID);
  usdt = await node.deployToken('USDT', 6);
  other = await node.deployToken('FAKE', 6);
});
after(() => node?.stop());

async function proxy(t: TestContext, o: ProxyOptions = {}): Promise<EvmProxy> {
  const p = await startEvmProxy(node.url, o);
  t.after(() => p.close());
  return p;
}

async function payd(t: TestContext, section: Record<string, unknown>, log = recordingLogger()): Promise<PaydHarness & { log: typeof log }> {
  const p = await startPayd({
    workers: true,
    sources: 'configured',
    log,
    config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: undefined, USDT_POLYGON: { address: MERCHANT, contract: usdt, pollSeconds: 0.2, backfillBlocks: 0, ...section } } },
  });
  t.after(() => p.close());
  return Object.assign(p, { log });
}

async function intent(p: PaydHarness, order: string, amount: number) {
  const m = await p.merchant();
  const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'USDT_POLYGON', order_id: order }, headers: m.headers });
  assert.equal(r.status, 200, r.text);
  return { id: r.body.intent_id as string, due: BigInt(/uint256=(\d+)$/.exec(r.body.payment_uri)![1]!) };
}

const status = async (p: PaydHarness, id: string) => (await p.app.intents.get(id)).status;
/** Waits until `x` has been asked for the final block `n` more times. */
async function polls(x: EvmProxy, n: number): Promise<void> {
  const heads = () => x.calls.filter((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized').length;
  const from = heads();
  await waitFor(async () => heads() >= from + n, 20_000, `${n} polls`);
}

test("an endpoint that passes off another token's transfer as a USDT payment settles nothing: the second endpoint contradicts it; the real payment settles", async (t) => {
  const liar = await proxy(t);
  // The honest endpoint is slower: the liar is preferred and serves first.
  const honest = await proxy(t, { delayMs: 800 });
  const p = await payd(t, { endpoints: [{ url: liar.url }, { url: honest.url }] });
  const { id, due } = await intent(p, 'forged', 21);
  // Each endpoint served once (an endpoint never measured is tried first); from then on the faster liar serves.
  await polls(honest, 1);
  await polls(liar, 1);
  // A real transfer of another token, of the exact amount, to the merchant; the liar reports it as the watched token's.
  const decoy = await node.transfer(other, MERCHANT, due);
  const receipt = await node.rpc<{ logs: { logIndex: string; blockHash: string }[] }>('eth_getTransactionReceipt', [decoy.hash]);
  liar.options.extraLogs = [
    {
      address: usdt.toLowerCase(),
      topics: [TRANSFER, '0x' + '00'.repeat(12) + '11'.repeat(20), '0x' + MERCHANT.slice(2).toLowerCase().padStart(64, '0')],
      data: '0x' + due.toString(16).padStart(64, '0'),
      blockNumber: '0x' + decoy.block.toString(16),
      blockHash: receipt.logs[0]!.blockHash,
      transactionHash: decoy.hash,
      transactionIndex: '0x0',
      logIndex: receipt.logs[0]!.logIndex,
      removed: false,
    },
  ];
  await node.mine(3);
  // The liar serves and reports the forged log; the honest endpoint holds another token's transfer there.
  await waitFor(async () => p.log.lines.some((l) => l.level === 'error' && /disagree/.test(l.msg) && l.fields.tx === decoy.hash) || (await status(p, id)) !== 'pending', 20_000, 'the forged log to be read');
  assert.equal(await status(p, id), 'pending', "settled on one endpoint's forged log");
  // The honest endpoint read that range instead; the liar serves the polls after it, past the forged log.
  await polls(liar, 3);
  assert.equal(await status(p, id), 'pending');
  assert.equal((await p.app.payments.list({})).length, 0);

  // The liar still answers, and a real payment settles.
  const paid = await node.transfer(usdt, MERCHANT, due);
  await node.mine(3);
  await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'the real payment to settle');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
  assert.deepEqual((await p.app.payments.list({})).map((r: { tx_ref: string }) => r.tx_ref.split(':')[0]), [paid.hash]);
});

test('a payment the second endpoint has not seen final yet waits for it, then settles; one endpoint alone is trusted only when configured so', async (t) => {
  const current = await proxy(t);
  const late = await proxy(t, { behind: 40 });
  const p = await payd(t, { endpoints: [{ url: current.url, weight: 5 }, { url: late.url }] });
  const { id, due } = await intent(p, 'late', 22);
  await polls(current, 1);
  const paid = await node.transfer(usdt, MERCHANT, due);
  await node.mine(3);
  await polls(current, 4);
  assert.equal(await status(p, id), 'pending', 'settled before the second endpoint saw its block final');
  // The scan reads only up to the block both call final: it has not passed the payment, so it is read once the second catches up.
  const cp = (await p.app.ledger.loadCheckpoint(`evm:${POLYGON_CHAIN_ID}`)) as { block: string } | undefined;
  assert.ok(cp && BigInt(cp.block) < paid.block, `checkpoint ${cp?.block} passed the payment's block ${paid.block}`);
  await node.mine(40);
  await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'settlement once the second endpoint caught up');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);

  // `confirmations.endpoints: 1`: whichever endpoint serves is believed; the doctor says a single endpoint is trusted entirely.
  const one = await payd(t, { endpoints: [{ url: current.url, weight: 5 }, { url: late.url }], confirmations: { endpoints: 1 } });
  const quick = await intent(one, 'one', 23);
  // Its scan has started (a first start reads from the final block it finds then) before the payment.
  await waitFor(async () => await one.app.ledger.loadCheckpoint(`evm:${POLYGON_CHAIN_ID}`), 20_000, 'the scan to start');
  await node.transfer(usdt, MERCHANT, quick.due);
  await node.mine(3);
  await waitFor(async () => (await status(one, quick.id)) === 'settled', 20_000, "settlement on one endpoint's word");
  const single = await payd(t, { rpcUrl: current.url });
  const line = (await single.app.doctor.run()).find((l) => /USDT_POLYGON/.test(l.what));
  assert.ok(line?.ok, JSON.stringify(line));
  assert.match(line.message, /only one endpoint: payd trusts that provider entirely/);
});

test('an endpoint claiming a final block far ahead of the chain is not believed: the checkpoint stays on the agreed block and a real payment settles', async (t) => {
  // Listed first and fast, the liar is asked first; its "final" block is a billion blocks ahead.
  const liar = await proxy(t, { behind: -1_000_000_000 });
  const honest = await proxy(t, { delayMs: 200 });
  const p = await payd(t, { endpoints: [{ url: liar.url }, { url: honest.url }] });
  const { id, due } = await intent(p, 'ahead', 24);
  const checkpoint = async () => BigInt(((await p.app.ledger.loadCheckpoint(`evm:${POLYGON_CHAIN_ID}`)) as { block: string } | undefined)?.block ?? -1);
  await waitFor(async () => (await checkpoint()) >= 0n, 20_000, 'the scan to start');
  await polls(honest, 2);
  assert.ok((await checkpoint()) <= (await node.blockNumber()), `checkpoint ${await checkpoint()} is past the chain's head ${await node.blockNumber()}`);
  const paid = await node.transfer(usdt, MERCHANT, due);
  await node.mine(3);
  await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'the real payment to settle');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
  assert.ok((await checkpoint()) <= (await node.blockNumber()));
  assert.ok(p.log.lines.some((l) => /not believed/.test(l.msg)), 'the liar is named in the log');
});

test('a lone endpoint naming a final block dated past the wall clock is not believed: a payment in a block not yet final waits, and settles once the endpoint tells the truth', async (t) => {
  // One endpoint, trusted alone (rpcUrl): no other to compare with, only the wall clock.
  const liar = await proxy(t);
  const p = await payd(t, { rpcUrl: liar.url });
  const { id, due } = await intent(p, 'dated-ahead', 27);
  const checkpoint = async () => ((await p.app.ledger.loadCheckpoint(`evm:${POLYGON_CHAIN_ID}`)) as { block: string } | undefined)?.block;
  await waitFor(async () => (await checkpoint()) !== undefined, 20_000, 'the scan to start');
  // Now its "final" block is 100 blocks past the real one (near enough to the chain not to be judged
  // far ahead of it) and dated 100 minutes from now: only its time gives it away.
  liar.options.finalizedAhead = { blocks: 100, blockSeconds: 60 };
  const paid = await node.transfer(usdt, MERCHANT, due);
  await node.mine(1); // the payment's block is one under the newest: not final (anvil's final block is two under)
  // Each poll the endpoint is not believed, the source backs off (longer each time): two are enough.
  await polls(liar, 2);
  assert.equal(await status(p, id), 'pending', 'settled on a final block dated past the wall clock');
  assert.ok(BigInt((await checkpoint())!) < paid.block, `checkpoint ${await checkpoint()} passed the payment's block ${paid.block}`);
  assert.ok(p.log.lines.some((l) => /not believed/.test(l.msg) && /wall clock/.test(String(l.fields.why))), 'the log says why the endpoint is not believed');
  liar.options.finalizedAhead = undefined;
  await node.mine(2);
  await waitFor(async () => (await status(p, id)) === 'settled', 30_000, 'settlement once the final block is real');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
});

test('on a first start, an endpoint far ahead that answers while the other is down does not set where the scan begins', async (t) => {
  const liar = await proxy(t, { behind: -1_000_000_000 });
  const honest = await proxy(t, { down: true });
  const p = await payd(t, { endpoints: [{ url: liar.url }, { url: honest.url }] });
  const { id, due } = await intent(p, 'alone', 26);
  await polls(liar, 3);
  const checkpoint = async () => ((await p.app.ledger.loadCheckpoint(`evm:${POLYGON_CHAIN_ID}`)) as { block: string } | undefined)?.block;
  assert.equal(await checkpoint(), undefined, 'no scan begins on one endpoint\'s word');
  honest.options.down = false;
  await waitFor(async () => (await checkpoint()) !== undefined, 20_000, 'the scan to start once the second endpoint answers');
  assert.ok(BigInt((await checkpoint())!) <= (await node.blockNumber()), `checkpoint ${await checkpoint()} is past the chain's head`);
  const paid = await node.transfer(usdt, MERCHANT, due);
  await node.mine(3);
  await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'the real payment to settle');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
});

/**
 * A payment the serving endpoint leaves out of its getLogs answers: it is faster, so it serves each
 * poll; the other endpoint, given `honestOptions`, is truthful. The payment is made before its block
 * is final (anvil's final block is two under the newest), then `blocks` are mined.
 */
async function withheldPayment(t: TestContext, honestOptions: ProxyOptions, order: string, amount: number, blocks: number) {
  const withholding = await proxy(t);
  const honest = await proxy(t, { delayMs: 200, ...honestOptions });
  const p = await payd(t, { endpoints: [{ url: withholding.url }, { url: honest.url }] });
  const { id, due } = await intent(p, order, amount);
  await waitFor(async () => await p.app.ledger.loadCheckpoint(`evm:${POLYGON_CHAIN_ID}`), 20_000, 'the scan to start');
  const paid = await node.transfer(usdt, MERCHANT, due);
  withholding.options.withhold = [paid.hash.toLowerCase()];
  await node.mine(blocks);
  return { p, id, paid, honest };
}

test('a second endpoint that takes fewer blocks per getLogs still lists what the serving one showed nothing new in: the withheld payment settles', async (t) => {
  // The honest endpoint refuses ranges above 2 blocks; several blocks become final at once, so the
  // serving endpoint's range is wider than the honest one takes.
  const { p, id, paid, honest } = await withheldPayment(t, { maxRange: 2 }, 'withheld-narrow', 26, 8);
  await waitFor(async () => (await status(p, id)) === 'settled', 30_000, 'the withheld payment to settle');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
  assert.ok(honest.refused >= 1, 'the second endpoint refused a range');
});

test('an endpoint that leaves a payment out of its getLogs answers hides nothing: a second endpoint lists the range it showed nothing new in, and the payment settles', async (t) => {
  const { p, id, paid } = await withheldPayment(t, {}, 'withheld', 25, 3);
  await waitFor(async () => (await status(p, id)) === 'settled', 20_000, 'the withheld payment to settle');
  assert.equal((await p.app.intents.get(id)).transaction_hash, paid.hash);
  assert.equal((await p.app.payments.list({})).length, 1, 'recorded once');
  assert.ok(p.log.lines.some((l) => l.msg === 'EVM second endpoint listed a transfer the serving endpoint left out'), 'found by the second listing');
});

/**
 * USDT on BNB Smart Chain has 18 decimals: a real anvil node with BSC's chain id (56) and an
 * 18-decimal ERC-20, paid with real transfers. An amount with dust in its last digits settles to
 * the last base unit and reads back exactly (the API's and the webhook's `_exact` strings); a
 * payment one base unit short is held as short. Both stores (NUMERIC on PostgreSQL, fixed-width
 * text on SQLite).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getAddress, type Address } from 'viem';
import { MERCHANT, startAnvil, type Anvil } from '../helpers/anvil.ts';
import { startPayd } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

const BSC_CHAIN_ID = 56;
let node: Anvil;
let usdt: Address;

before(async () => {
  node = await startAnvil(BSC_CHAIN_ID);
  usdt = await node.deployToken('USDT', 18);
});
after(() => node?.stop());

forEachStore((store) => {
  test('18-decimal USDT on BNB Smart Chain: an amount with dust settles exactly, the API and webhook show it to the last digit, 1 wei short is held', async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const p = await startPayd({
      workers: true,
      sources: 'configured',
      store,
      config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: undefined, USDT_BSC: { address: MERCHANT, contract: usdt, rpcUrl: node.url, pollSeconds: 0.2, backfillBlocks: 0 } } },
    });
    t.after(() => p.close());
    const m = await p.merchant('BSC shop', receiver.url);
    // The node is shared by both stores' runs: each pays amounts of its own.
    const whole = store.kind === 'sqlite' ? '12' : '13';
    const create = async (amount: string, order: string) => {
      const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'USDT_BSC', order_id: order }, headers: m.headers });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const exact = await create(`${whole}.345678901234567891`, 'dust');
    assert.equal(exact.pay_amount_exact, `${whole}.345678901234567891`);
    const due = BigInt(`${whole}345678901234567891`);
    // The contract and the address in their EIP-55 spelling, the amount in wei.
    assert.equal(exact.payment_uri, `ethereum:${getAddress(usdt)}@${BSC_CHAIN_ID}/transfer?address=${MERCHANT}&uint256=${due}`);
    // Five tokens apart: a short payment is attributed only to the one intent within a token above it.
    const shortWhole = String(Number(whole) + 5);
    const short = await create(`${shortWhole}.000000000000000005`, 'short');
    assert.equal(short.pay_amount_exact, `${shortWhole}.000000000000000005`);
    const shortDue = BigInt(`${shortWhole}000000000000000005`);

    // Wait for the scan to have its checkpoint, then pay: exactly, and one base unit short.
    await waitFor(async () => await p.app.ledger.loadCheckpoint(`evm:${BSC_CHAIN_ID}`), 20_000, 'the scan to start');
    const paid = await node.transfer(usdt, MERCHANT, due);
    await node.transfer(usdt, MERCHANT, shortDue - 1n);
    await node.mine(3);

    const hooks = (await receiver.waitFor(2, 30_000)).map((h) => JSON.parse(h.body));
    const success = hooks.find((h) => h.type === 'payment.success');
    assert.ok(success, JSON.stringify(hooks));
    assert.equal(success.data.intent_id, exact.intent_id);
    assert.equal(success.data.amount_received_exact, `${whole}.345678901234567891`);
    assert.equal(success.data.transaction_hash, paid.hash);
    const held = hooks.find((h) => h.type === 'payment.held');
    assert.ok(held, JSON.stringify(hooks));
    assert.equal(held.data.intent_id, short.intent_id);
    assert.equal(held.data.amount_exact, `${shortWhole}.000000000000000004`);

    const settled = (await p.api('GET', `/api/v1/intents/${exact.intent_id}`, { headers: m.headers })).body;
    assert.equal(settled.status, 'settled');
    assert.equal(settled.amount_received_exact, `${whole}.345678901234567891`);
    assert.equal(settled.payments[0].amount_exact, `${whole}.345678901234567891`);
    const pending = (await p.api('GET', `/api/v1/intents/${short.intent_id}`, { headers: m.headers })).body;
    assert.equal(pending.status, 'pending');
    assert.deepEqual(pending.payments.map((x: any) => [x.amount_exact, x.status, x.reason]), [[`${shortWhole}.000000000000000004`, 'held', 'underpaid']]);
  });
});

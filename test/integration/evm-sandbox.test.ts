import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinMethods } from '../../src/methods/registry.ts';
import { startPayd } from '../helpers/payd.ts';

test('every EVM currency pays in the sandbox: the simulated transfer settles the intent with a transaction hash', async (t) => {
  const p = await startPayd({ sandbox: true });
  t.after(() => p.close());
  const m = await p.merchant();
  const evm = builtinMethods.list.filter((d) => d.family === 'evm');
  assert.deepEqual(evm.map((d) => d.id), ['USDT_ETH', 'USDC_ETH', 'USDT_BSC', 'USDC_BSC', 'USDT_POLYGON', 'USDC_POLYGON', 'USDT_ARBITRUM', 'USDC_ARBITRUM', 'USDC_BASE']);
  for (const d of evm) {
    const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 12, currency: d.id, order_id: `sb-${d.id}` }, headers: m.headers });
    assert.equal(r.status, 200, r.text);
    // 12.01 in the token's base units: 6 decimals, or BNB Smart Chain's 18.
    assert.match(r.body.payment_uri, new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@\\d+/transfer\\?address=${r.body.payment_address}&uint256=1201${'0'.repeat(d.rules.decimals - 2)}$`));
    assert.equal(r.body.pay_amount, 12.01);
    const paid = await p.app.actions.sandboxPay(r.body.intent_id, undefined);
    const after = await p.app.intents.get(r.body.intent_id);
    assert.equal(after.status, 'settled', d.id);
    assert.equal(after.transaction_hash, paid.txRef);
    assert.match(after.transaction_hash!, /^0x[0-9a-f]{64}$/);
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeTxRef, txHashOf } from '../../../src/domain/methods.ts';
import { builtinMethods, methodRegistry } from '../../../src/methods/registry.ts';
import { sandboxReceivers } from '../../../src/methods/sandbox/receivers.ts';

const of = (id: string) => builtinMethods.of(id);

test('the built-in methods, in the order the API document and its errors list them', () => {
  assert.deepEqual(builtinMethods.ids, ['UPI', 'USDT_TRC20', 'USDT_SOL', 'USDC_SOL', 'SOL', 'USDT_ETH', 'USDC_ETH', 'USDT_BSC', 'USDC_BSC', 'USDT_POLYGON', 'USDC_POLYGON', 'USDT_ARBITRUM', 'USDC_ARBITRUM', 'USDC_BASE']);
  assert.deepEqual(
    builtinMethods.list.map((m) => [m.id, m.rules.decimals, m.rules.amountStep, m.rules.unit]),
    [
      ['UPI', 2, 1n, 'INR'],
      ['USDT_TRC20', 6, 10_000n, 'USDT'],
      ['USDT_SOL', 6, 10_000n, 'USDT'],
      ['USDC_SOL', 6, 10_000n, 'USDC'],
      ['SOL', 9, 1_000n, 'SOL'],
      ['USDT_ETH', 6, 10_000n, 'USDT'],
      ['USDC_ETH', 6, 10_000n, 'USDC'],
      // Binance-Peg tokens: 18 decimals, the step still 0.01.
      ['USDT_BSC', 18, 10_000_000_000_000_000n, 'USDT'],
      ['USDC_BSC', 18, 10_000_000_000_000_000n, 'USDC'],
      ['USDT_POLYGON', 6, 10_000n, 'USDT'],
      ['USDC_POLYGON', 6, 10_000n, 'USDC'],
      ['USDT_ARBITRUM', 6, 10_000n, 'USDT'],
      ['USDC_ARBITRUM', 6, 10_000n, 'USDC'],
      ['USDC_BASE', 6, 10_000n, 'USDC'],
    ],
  );
  assert.deepEqual(builtinMethods.list.filter((m) => m.newReference).map((m) => m.id), ['USDT_SOL', 'USDC_SOL', 'SOL']);
  assert.equal(builtinMethods.get('BTC'), undefined);
  assert.throws(() => builtinMethods.of('BTC'), /unknown payment method "BTC"/);
});

test('a method added twice (or over a built-in one) is refused', () => {
  assert.throws(() => methodRegistry([of('SOL')]), /share an id/);
});

test('each method spells a hand-typed transaction reference as its source records it', () => {
  assert.equal(normalizeTxRef(of('UPI').txRef, ' UTR 6326 1234 0002 '), '632612340002');
  assert.equal(normalizeTxRef(of('USDT_TRC20').txRef, '0xABCdef'), 'abcdef');
  assert.equal(normalizeTxRef(of('USDT_TRC20').txRef, '0xABC:TSender:5'), 'abc:TSender:5');
  assert.equal(normalizeTxRef(of('SOL').txRef, ' 5Sig '), '5Sig');
  assert.equal(normalizeTxRef(of('UPI').txRef, 'no digits'), null);
  assert.equal(normalizeTxRef(of('SOL').txRef, 'x'.repeat(201)), null);
  assert.equal(txHashOf(of('USDT_TRC20').txRef, 'abc:TSender:5'), 'abc');
  assert.equal(txHashOf(of('UPI').txRef, '632612340002'), undefined);
  // EVM: a transaction hash in any case, with or without 0x; a row is <hash>:<log index>.
  const hash = '0x' + 'ab'.repeat(32);
  assert.equal(normalizeTxRef(of('USDT_BSC').txRef, 'AB'.repeat(32)), hash);
  assert.equal(normalizeTxRef(of('USDC_BASE').txRef, `0x${'AB'.repeat(32)}:3`), `${hash}:3`);
  assert.equal(txHashOf(of('USDC_BASE').txRef, `${hash}:3`), hash);
});

test('payment links as wallets read them', () => {
  const d = { receiver: 'shop@hdfcbank', payAmountMinor: 49_937n, orderId: 'A 1', payeeName: 'Chai & Co' };
  assert.equal(of('UPI').paymentUri(d), 'upi://pay?pa=shop%40hdfcbank&pn=Chai%20%26%20Co&am=499.37&cu=INR&tn=A%201');
  const tron = of('USDT_TRC20');
  assert.equal(tron.paymentUri({ ...d, receiver: 'TAddr', payAmountMinor: 12_500_000n, token: tron.token!(undefined) }), 'tron:TAddr?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=12.5');
  const usdt = of('USDT_SOL');
  assert.equal(
    usdt.paymentUri({ ...d, receiver: 'W', payAmountMinor: 3_000_001n, reference: 'Ref', token: usdt.token!(undefined) }),
    'solana:W?amount=3.000001&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB&reference=Ref&label=Chai%20%26%20Co&message=Order%20A%201',
  );
  assert.equal(of('SOL').paymentUri({ ...d, receiver: 'W', payAmountMinor: 250_000_000n, reference: 'Ref' }), 'solana:W?amount=0.25&reference=Ref&label=Chai%20%26%20Co&message=Order%20A%201');
  // EIP-681: the token's transfer on that chain, the amount in base units (18 decimals on BNB Smart Chain).
  const bsc = of('USDT_BSC');
  const to = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
  assert.equal(
    bsc.paymentUri({ ...d, receiver: to, payAmountMinor: 12_010_000_000_000_000_123n, token: bsc.token!(undefined) }),
    `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${to}&uint256=12010000000000000123`,
  );
  const base = of('USDC_BASE');
  assert.equal(base.paymentUri({ ...d, receiver: to, payAmountMinor: 10_010_000n, token: base.token!(undefined) }), `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=${to}&uint256=10010000`);
  assert.equal(bsc.checkout.label, 'USDT on BNB Smart Chain (BEP20)');
  assert.match(bsc.checkout.warning!, /^Send only USDT on BNB Smart Chain \(BEP20\)\./);
  // A receiver in any case is shown and compared in its EIP-55 spelling.
  assert.equal(base.receiver({ address: to.toLowerCase() } as never), to);
  // A configured contract or mint wins over the default.
  assert.equal(tron.token!({ contract: 'TOther' } as never), 'TOther');
});

test('sandbox receivers are fixed, well-formed and per method', () => {
  const r = sandboxReceivers();
  assert.deepEqual(Object.keys(r), ['UPI', 'USDT_TRC20', 'USDT_SOL', 'USDC_SOL', 'SOL', 'USDT_ETH', 'USDC_ETH', 'USDT_BSC', 'USDC_BSC', 'USDT_POLYGON', 'USDC_POLYGON', 'USDT_ARBITRUM', 'USDC_ARBITRUM', 'USDC_BASE']);
  // One EVM address for every EVM currency, as an operator's would be.
  assert.match(r.USDC_BASE!, /^0x[0-9a-fA-F]{40}$/);
  assert.equal(r.USDT_BSC, r.USDC_BASE);
  assert.equal(r.UPI, 'sandbox.shop@paydsandbox');
  assert.match(r.USDT_TRC20!, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  assert.equal(r.SOL, r.USDT_SOL);
  assert.deepEqual(sandboxReceivers(), r);
  const bytes = new Uint8Array(64).fill(7);
  assert.match(of('UPI').sandbox.txRef(bytes), /^\d{12}$/);
  assert.match(of('USDT_TRC20').sandbox.txRef(bytes), /^[0-9a-f]{64}$/);
  assert.match(of('USDT_ETH').sandbox.txRef(bytes), /^0x[0-9a-f]{64}$/);
});

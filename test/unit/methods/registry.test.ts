import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeTxRef, txHashOf } from '../../../src/domain/methods.ts';
import { builtinMethods, methodRegistry } from '../../../src/methods/registry.ts';
import { sandboxReceivers } from '../../../src/methods/sandbox/receivers.ts';

const of = (id: string) => builtinMethods.of(id);

test('the built-in methods, in the order the API document and its errors list them', () => {
  assert.deepEqual(builtinMethods.ids, ['UPI', 'USDT_TRC20', 'USDT_SOL', 'USDC_SOL', 'SOL']);
  assert.deepEqual(
    builtinMethods.list.map((m) => [m.id, m.rules.decimals, m.rules.amountStep, m.rules.unit]),
    [
      ['UPI', 2, 1n, 'INR'],
      ['USDT_TRC20', 6, 10_000n, 'USDT'],
      ['USDT_SOL', 6, 10_000n, 'USDT'],
      ['USDC_SOL', 6, 10_000n, 'USDC'],
      ['SOL', 9, 1_000n, 'SOL'],
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
  // A configured contract or mint wins over the default.
  assert.equal(tron.token!({ contract: 'TOther' } as never), 'TOther');
});

test('sandbox receivers are fixed, well-formed and per method', () => {
  const r = sandboxReceivers();
  assert.deepEqual(Object.keys(r), ['UPI', 'USDT_TRC20', 'USDT_SOL', 'USDC_SOL', 'SOL']);
  assert.equal(r.UPI, 'sandbox.shop@paydsandbox');
  assert.match(r.USDT_TRC20!, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  assert.equal(r.SOL, r.USDT_SOL);
  assert.deepEqual(sandboxReceivers(), r);
  const bytes = new Uint8Array(64).fill(7);
  assert.match(of('UPI').sandbox.txRef(bytes), /^\d{12}$/);
  assert.match(of('USDT_TRC20').sandbox.txRef(bytes), /^[0-9a-f]{64}$/);
});

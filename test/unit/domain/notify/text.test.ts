import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertText, amountText, digestText, heldText, recoveredText, settledText, type ShowAmount } from '../../../../src/domain/notify/text.ts';
import { showAmountWith } from '../../../../src/app/notify.ts';
import { builtinMethods } from '../../../../src/methods/registry.ts';

// What the composition root hands in: the checkout's own formatter.
const show: ShowAmount = showAmountWith(builtinMethods);

test('amounts read as the checkout prints them, with the network for tokens', () => {
  assert.equal(amountText(show, 'UPI', 12345678n), '₹1,23,456.78');
  assert.equal(amountText(show, 'USDT_TRC20', 12_500_000n), '12.50 USDT (USDT_TRC20)');
  assert.equal(amountText(show, 'USDT_SOL', 1_000_001n), '1.000001 USDT (USDT_SOL)');
  assert.equal(amountText(show, 'SOL', 1_500_000_000n), '1.50 SOL');
});

test('messages are one plain sentence or two', () => {
  assert.equal(settledText(show, { method: 'UPI', amountMinor: 149900n, orderId: 'ORD-1', reference: '412345678901' }), 'Paid: ₹1,499.00 for order ORD-1. Ref 412345678901.');
  // Through a payment link: a counter QR is a place, a fixed-price link the thing sold.
  assert.equal(settledText(show, { method: 'UPI', amountMinor: 45037n, orderId: 'k3x9-1', reference: null, link: { title: 'counter', counter: true } }), 'Paid ₹450.37 at the counter (order k3x9-1).');
  assert.equal(settledText(show, { method: 'UPI', amountMinor: 49912n, orderId: 'b7q2-4', reference: null, link: { title: 'Blue saree', counter: false } }), 'Paid ₹499.12 for Blue saree (order b7q2-4).');
  assert.equal(
    digestText(show, [{ method: 'UPI', amountMinor: 100n, orderId: 'a', reference: null }, { method: 'UPI', amountMinor: 250n, orderId: 'b', reference: null }, { method: 'SOL', amountMinor: 10n ** 9n, orderId: 'c', reference: null }], 60),
    '3 payments in the last 60 min: ₹3.50, 1.00 SOL.',
  );
  assert.equal(alertText('alerts.unreadable', 'hdfc', '3'), '3 HDFC alerts in the last 24 h could not be read. Run payd doctor.');
  assert.equal(alertText('alerts.unreadable', 'sbi', '1'), '1 SBI alert in the last 24 h could not be read. Run payd doctor.');
  assert.equal(recoveredText('source.down', 'UPI', '12 min'), 'Recovered: payments by UPI are being read again (after 12 min).');
});

test('a held payment says why in the shopkeeper\'s words, and what to do', () => {
  assert.equal(
    heldText(show, { method: 'SOL', amountMinor: 793_651_000n, orderId: 'ORD-7', reference: '5sig', reason: 'quote_expired' }),
    "Held, not credited: 0.793651 SOL for order ORD-7: paid after the price quote expired: the rate has changed; accept at today's rate or refund. Ref 5sig.",
  );
  assert.equal(
    heldText(show, { method: 'UPI', amountMinor: 49900n, orderId: null, reference: '612345678901', reason: 'late' }),
    'Held, not credited: ₹499.00: arrived after the intent expired; accept it or mark it refunded. Ref 612345678901.',
  );
});

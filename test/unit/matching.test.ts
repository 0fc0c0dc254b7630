import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IntentsTable } from '../../src/db/schema.ts';
import { decideMatch } from '../../src/domain/matching.ts';
import type { ReceivedPayment } from '../../src/domain/payment.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const intent = (over: Partial<IntentsTable>): IntentsTable => ({
  id: 'i1',
  merchant_id: 'm',
  order_id: 'o',
  method: 'SOL',
  amount_minor: 1000,
  pay_amount_minor: 1000,
  receiver: 'w',
  reference: 'REF1',
  payment_uri: '',
  status: 'pending',
  return_url: null,
  created_at: T0,
  expires_at: T0 + 1800_000,
  transaction_hash: null,
  verified_at: null,
  payment_id: null,
  updated_at: T0,
  ...over,
});
const pay = (over: Partial<ReceivedPayment>): ReceivedPayment => ({ method: 'SOL', receiver: 'w', amountMinor: 1000n, txRef: 'sig', occurredAt: T0 + 1000, observedAt: T0 + 1000, source: 'solana', ...over });
const o = { skewMs: 60_000, manual: false };

test('exact amount settles the single open intent', () => {
  assert.equal(decideMatch(pay({}), [intent({})], o).kind, 'settle');
  assert.deepEqual(decideMatch(pay({ amountMinor: 999n }), [], o), { kind: 'unmatched', reason: 'no_matching_intent' });
});

test('timing: more than 60 s before creation or after expiry never matches', () => {
  assert.equal(decideMatch(pay({ occurredAt: T0 - 59_000 }), [intent({})], o).kind, 'settle');
  assert.deepEqual(decideMatch(pay({ occurredAt: T0 - 61_000 }), [intent({})], o), { kind: 'unmatched', reason: 'too_early', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({ occurredAt: T0 + 1800_001 }), [intent({})], o), { kind: 'unmatched', reason: 'late', intentId: 'i1' });
  // Expired in the database but paid in time: still settles.
  assert.equal(decideMatch(pay({}), [intent({ status: 'expired' })], o).kind, 'settle');
});

test('reference first: at least pay_amount settles, less is an under-payment', () => {
  assert.equal(decideMatch(pay({ references: ['REF1'], amountMinor: 1500n }), [intent({})], o).kind, 'settle');
  assert.deepEqual(decideMatch(pay({ references: ['REF1'], amountMinor: 999n }), [intent({})], o), { kind: 'unmatched', reason: 'underpaid', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({ references: ['REF1'] }), [intent({ status: 'settled' })], o), { kind: 'unmatched', reason: 'already_settled', intentId: 'i1' });
});

test('two open intents with one amount is ambiguous, never a guess', () => {
  assert.deepEqual(decideMatch(pay({}), [intent({ id: 'a' }), intent({ id: 'b' })], o), { kind: 'unmatched', reason: 'ambiguous' });
});

test('manual settlement only of a pending intent', () => {
  assert.equal(decideMatch(pay({}), [intent({})], { ...o, manual: true }).kind, 'settle');
  assert.deepEqual(decideMatch(pay({}), [intent({ status: 'settled' })], { ...o, manual: true }), { kind: 'unmatched', reason: 'already_settled', intentId: 'i1' });
});

test('a canceled intent never settles: its payment is kept unmatched with reason canceled', () => {
  const canceled = intent({ status: 'canceled', canceled_at: T0 + 500 });
  // By Solana Pay reference, by exact amount, and by the operator's manual settle.
  assert.deepEqual(decideMatch(pay({ references: ['REF1'] }), [canceled], o), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({}), [intent({ status: 'canceled', reference: null })], o), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({}), [canceled], { ...o, manual: true }), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  // Late for it too: still the canceled intent's money, for the operator to refund.
  assert.deepEqual(decideMatch(pay({ occurredAt: T0 + 1900_000 }), [intent({ status: 'canceled', reference: null })], o), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  // Before it existed it is not its money.
  assert.deepEqual(decideMatch(pay({ occurredAt: T0 - 120_000 }), [intent({ status: 'canceled', reference: null })], o), { kind: 'unmatched', reason: 'too_early', intentId: 'i1' });
});

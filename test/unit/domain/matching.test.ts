import assert from 'node:assert/strict';
import { test } from 'node:test';
import { intentFromRow } from '../../../src/db/intent-rows.ts';
import type { IntentsTable } from '../../../src/db/schema.ts';
import type { Intent } from '../../../src/domain/intent.ts';
import { decideMatch } from '../../../src/domain/matching.ts';
import type { ReceivedPayment } from '../../../src/domain/payment.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
// Written as stored rows (short to read), handed to the matcher as the core's Intent.
const intent = (over: Partial<IntentsTable>): Intent =>
  intentFromRow({
  id: 'i1',
  merchant_id: 'm',
  order_id: 'o',
  method: 'SOL',
  amount_minor: '1000',
  pay_amount_minor: '1000',
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
const o = { skewMs: 60_000, mode: 'amount' as const };
const ref = { skewMs: 60_000, mode: 'reference' as const };
const manual = { skewMs: 60_000, mode: 'manual' as const };
const settledIds = (d: ReturnType<typeof decideMatch>) => (d.kind === 'settle' ? d.allocations.map((a) => [a.intent.id, a.amountMinor]) : d);

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
  assert.deepEqual(settledIds(decideMatch(pay({ references: ['REF1'], amountMinor: 1500n }), [intent({})], ref)), [['i1', 1500n]], 'an over-payment settles with the whole credit');
  assert.deepEqual(decideMatch(pay({ references: ['REF1'], amountMinor: 999n }), [intent({})], ref), { kind: 'unmatched', reason: 'underpaid', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({ references: ['REF1'] }), [intent({ status: 'settled' })], ref), { kind: 'unmatched', reason: 'already_settled', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({ references: ['REF1'], occurredAt: T0 - 61_000 }), [intent({})], ref), { kind: 'unmatched', reason: 'too_early', intentId: 'i1' });
});

test('several references in one transaction: each intent the credit covers settles, oldest first; the rest is an under-payment', () => {
  const a = intent({ id: 'a', reference: 'RA', pay_amount_minor: '1000', created_at: T0 });
  const b = intent({ id: 'b', reference: 'RB', pay_amount_minor: '2000', created_at: T0 + 10 });
  const c = intent({ id: 'c', reference: 'RC', pay_amount_minor: '4000', created_at: T0 + 20 });
  const refs = ['RC', 'RB', 'RA'];
  // Candidates arrive in any order; the matcher sorts them by age itself.
  assert.deepEqual(settledIds(decideMatch(pay({ references: refs, amountMinor: 3000n, occurredAt: T0 + 100 }), [c, b, a], ref)), [['a', 1000n], ['b', 2000n]]);
  const short = decideMatch(pay({ references: refs, amountMinor: 5000n, occurredAt: T0 + 100 }), [b, c, a], ref);
  assert.deepEqual(settledIds(short), [['a', 1000n], ['b', 2000n]]);
  assert.deepEqual(short.kind === 'settle' && short.remainder, { amountMinor: 2000n, reason: 'underpaid', intentId: 'c' });
  // More than all three: the last settled intent takes the surplus, as a single over-payment would.
  assert.deepEqual(settledIds(decideMatch(pay({ references: refs, amountMinor: 7500n, occurredAt: T0 + 100 }), [a, b, c], ref)), [['a', 1000n], ['b', 2000n], ['c', 4500n]]);
  // An already settled one is passed over, not paid twice.
  assert.deepEqual(settledIds(decideMatch(pay({ references: refs, amountMinor: 2000n, occurredAt: T0 + 100 }), [{ ...a, status: 'settled' }, b], ref)), [['b', 2000n]]);
  // Less than the oldest: nothing settles; kept as the oldest one's under-payment.
  assert.deepEqual(decideMatch(pay({ references: refs, amountMinor: 500n, occurredAt: T0 + 100 }), [a, b], ref), { kind: 'unmatched', reason: 'underpaid', intentId: 'a' });
});

test('two open intents with one amount is ambiguous, never a guess', () => {
  assert.deepEqual(decideMatch(pay({}), [intent({ id: 'a' }), intent({ id: 'b' })], o), { kind: 'unmatched', reason: 'ambiguous' });
  // Without an open one, the newest (whatever the candidates' order) explains the miss.
  const old = intent({ id: 'old', status: 'settled', created_at: T0 - 10_000 });
  const recent = intent({ id: 'recent', status: 'pending', created_at: T0 + 5000_000, expires_at: T0 + 6000_000 });
  assert.deepEqual(decideMatch(pay({}), [old, recent], o), { kind: 'unmatched', reason: 'too_early', intentId: 'recent' });
});

test('manual settlement only of a pending intent', () => {
  assert.equal(decideMatch(pay({}), [intent({})], manual).kind, 'settle');
  assert.deepEqual(decideMatch(pay({}), [intent({ status: 'settled' })], manual), { kind: 'unmatched', reason: 'already_settled', intentId: 'i1' });
  // The mode is explicit: a manual candidate list is never read as a reference match.
  assert.equal(decideMatch(pay({ references: ['REF1'], amountMinor: 1n }), [intent({})], manual).kind, 'settle');
});

test('a canceled intent never settles: its payment is kept unmatched with reason canceled', () => {
  const canceled = intent({ status: 'canceled', canceled_at: T0 + 500 });
  // By Solana Pay reference, by exact amount, and by the operator's manual settle.
  assert.deepEqual(decideMatch(pay({ references: ['REF1'] }), [canceled], ref), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({}), [intent({ status: 'canceled', reference: null })], o), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  assert.deepEqual(decideMatch(pay({}), [canceled], manual), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  // Late for it too: still the canceled intent's money, for the operator to refund.
  assert.deepEqual(decideMatch(pay({ occurredAt: T0 + 1900_000 }), [intent({ status: 'canceled', reference: null })], o), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
  // An older expired intent with the same pay_amount does not take it either.
  assert.deepEqual(decideMatch(pay({ occurredAt: T0 + 1000 }), [intent({ status: 'canceled', reference: null }), intent({ id: 'old', status: 'expired', reference: null, created_at: T0 - 7200_000, expires_at: T0 - 5400_000 })], o), { kind: 'unmatched', reason: 'canceled', intentId: 'i1' });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attribute, type Candidate } from '../../../src/domain/attribution.ts';
import type { Intent } from '../../../src/domain/intent.ts';
import type { ReceivedPayment } from '../../../src/domain/payment.ts';
import { pendingIntent } from '../../helpers/intent.ts';
import { parseTolerance, withinTolerance, type PaymentPolicy } from '../../../src/domain/payment-policy.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const intent = (id: string, payAmountMinor: bigint, over: Partial<Intent> = {}): Intent => pendingIntent(id, payAmountMinor, T0, over);
const held = (i: Intent, creditedMinor = 0n): Candidate => ({ intent: i, creditedMinor, holdsAmount: true });
const pay = (amountMinor: bigint, over: Partial<ReceivedPayment> = {}): ReceivedPayment => ({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor, txRef: 'utr', occurredAt: T0 + 60_000, observedAt: T0 + 60_000, source: 'imap', ...over });
const policy = (over: Partial<PaymentPolicy> = {}): PaymentPolicy => ({ latePayments: 'settle', settleExpiredQuotes: false, underpaymentTolerance: null, attributionWindowMinor: 100n, ...over });
const ctx = (over: Partial<PaymentPolicy> = {}) => ({ policy: policy(over), skewMs: 60_000 });
const kindOf = (a: ReturnType<typeof attribute>) => (a.kind === 'credit' ? ['credit', a.credits.map((c) => [c.intent.id, c.amountMinor, c.settles])] : a.kind === 'hold' ? ['hold', a.intent.id, a.reason] : ['unmatched', a.reason]);

test('exact amount of the intent holding it: settles; after expires_at: settles late by default, held under "hold"', () => {
  const i = intent('a', 49937n);
  assert.deepEqual(kindOf(attribute(pay(49937n), [held(i)], ctx())), ['credit', [['a', 49937n, true]]]);
  const late = attribute(pay(49937n, { occurredAt: T0 + 1900_000 }), [held(i)], ctx());
  assert.equal(late.kind === 'credit' && late.credits[0].late, true);
  assert.deepEqual(kindOf(attribute(pay(49937n, { occurredAt: T0 + 1900_000 }), [held(i)], ctx({ latePayments: 'hold' }))), ['hold', 'a', 'late']);
  // Its reservation over: no longer its payment.
  assert.deepEqual(kindOf(attribute(pay(49937n, { occurredAt: T0 + 1900_000 }), [{ intent: i, creditedMinor: 0n, holdsAmount: false }], ctx())), ['unmatched', 'late']);
});

test('exact amount of a canceled or settled intent: held for its merchant', () => {
  assert.deepEqual(kindOf(attribute(pay(1000n), [held(intent('c', 1000n, { status: 'canceled' }))], ctx())), ['hold', 'c', 'canceled']);
  assert.deepEqual(kindOf(attribute(pay(1000n), [held(intent('s', 1000n, { status: 'settled' }))], ctx())), ['hold', 's', 'after_settlement']);
});

test('short payment: the single reserved amount in the window takes it (settled within the tolerance, else held)', () => {
  const i = intent('a', 49937n);
  assert.deepEqual(kindOf(attribute(pay(49900n), [held(i)], ctx())), ['hold', 'a', 'underpaid']);
  const ok = attribute(pay(49900n), [held(i)], ctx({ underpaymentTolerance: { kind: 'percent', basisPoints: 100n } }));
  assert.deepEqual(kindOf(ok), ['credit', [['a', 49900n, true]]]);
  assert.equal(ok.kind === 'credit' && ok.credits[0].underpaidByMinor, 37n);
  // Beyond the window: not attributed.
  assert.deepEqual(kindOf(attribute(pay(49800n), [held(i)], ctx())), ['unmatched', 'no_matching_intent']);
});

test('the tolerance never makes two intents candidates: two reserved amounts in the window, or one equal to the amount, is no attribution', () => {
  const tol = { underpaymentTolerance: { kind: 'percent' as const, basisPoints: 100n } };
  assert.deepEqual(kindOf(attribute(pay(30000n), [held(intent('a', 30040n)), held(intent('b', 30060n))], ctx(tol))), ['unmatched', 'ambiguous']);
  // A closed intent's reservation in the window still counts against the open one.
  assert.deepEqual(kindOf(attribute(pay(30000n), [held(intent('a', 30040n, { status: 'settled' })), held(intent('b', 30060n))], ctx(tol))), ['unmatched', 'ambiguous']);
  // The bare price handed out (₹499.00) is that intent's exact amount: the ₹499.37 intent never gets it.
  assert.deepEqual(kindOf(attribute(pay(49900n), [held(intent('bare', 49900n)), held(intent('a', 49937n))], ctx(tol))), ['credit', [['bare', 49900n, true]]]);
  // A payment made before an intent existed is never its.
  assert.deepEqual(kindOf(attribute(pay(49900n, { occurredAt: T0 - 120_000 }), [held(intent('a', 49937n))], ctx(tol))), ['unmatched', 'too_early']);
});

test('a payment after a priced intent\'s quote: held quote_expired whatever latePayments says, settled late only where the method opts in; the identity quote never expires', () => {
  const quote = (source: string) => ({ priceAmount: '10000', priceCurrency: 'INR' as const, rate: '12600', source, quotedAt: T0, validUntil: T0 + 600_000 });
  const priced = intent('q', 793_651_000n, { method: 'SOL', receiver: 'Wallet1', reference: 'RefQ', expiresAt: T0 + 600_000, pricing: quote('kraken×frankfurter') });
  const sol = (at: number, refs: string[] = []) => pay(793_651_000n, { method: 'SOL', receiver: 'Wallet1', occurredAt: at, observedAt: at, references: refs });
  const later = T0 + 20 * 3600_000;
  for (const latePayments of ['settle', 'hold'] as const) {
    assert.deepEqual(kindOf(attribute(sol(later), [held(priced)], ctx({ latePayments }))), ['hold', 'q', 'quote_expired'], `by amount, ${latePayments}`);
    assert.deepEqual(kindOf(attribute(sol(later, ['RefQ']), [held(priced)], ctx({ latePayments }))), ['hold', 'q', 'quote_expired'], `by reference, ${latePayments}`);
  }
  // One transaction paying two referenced intents, one of them past its quote: the whole payment waits.
  const other = intent('r', 100_000_000n, { method: 'SOL', receiver: 'Wallet1', reference: 'RefR', expiresAt: later + 600_000 });
  const both = attribute(pay(893_651_000n, { method: 'SOL', receiver: 'Wallet1', occurredAt: later, observedAt: later, references: ['RefQ', 'RefR'] }), [held(priced), held(other)], ctx());
  assert.deepEqual(kindOf(both), ['hold', 'q', 'quote_expired']);
  // Inside the quote: settles.
  assert.deepEqual(kindOf(attribute(sol(T0 + 60_000), [held(priced)], ctx())), ['credit', [['q', 793_651_000n, true]]]);
  // Opted in: settles, marked late.
  const opted = attribute(sol(later), [held(priced)], ctx({ settleExpiredQuotes: true }));
  assert.equal(opted.kind === 'credit' && opted.credits[0].settles && opted.credits[0].late, true);
  // UPI priced in INR: the identity has no rate to expire; only latePayments applies.
  const upi = intent('u', 1_000_000n, { expiresAt: T0 + 600_000, pricing: { ...quote('identity'), rate: '1' } });
  assert.equal(kindOf(attribute(pay(1_000_000n, { occurredAt: later, observedAt: later }), [held(upi)], ctx()))[0], 'credit');
});

test('Solana Pay reference: parts accumulate, the completing one settles, more is an over-payment', () => {
  const i = intent('s', 1_500_000_000n, { method: 'SOL', reference: 'REF' });
  const p = (amountMinor: bigint) => pay(amountMinor, { method: 'SOL', references: ['REF'] });
  assert.deepEqual(kindOf(attribute(p(1_000_000_000n), [held(i)], ctx())), ['credit', [['s', 1_000_000_000n, false]]]);
  assert.deepEqual(kindOf(attribute(p(500_000_000n), [held(i, 1_000_000_000n)], ctx())), ['credit', [['s', 500_000_000n, true]]]);
  const over = attribute(p(2_000_000_000n), [held(i)], ctx());
  assert.equal(over.kind === 'credit' && over.credits[0].overpaidByMinor, 500_000_000n);
  assert.deepEqual(kindOf(attribute(p(1n), [held({ ...i, status: 'settled' })], ctx())), ['hold', 's', 'after_settlement']);
});

test('tolerance: "1%" of pay_amount rounded down, or an absolute amount; bad values are refused', () => {
  assert.deepEqual(parseTolerance('1%', 2), { kind: 'percent', basisPoints: 100n });
  assert.deepEqual(parseTolerance('1.00', 6), { kind: 'absolute', minor: 1_000_000n });
  for (const bad of ['0%', '101%', '-1', 'abc', '0']) assert.ok('error' in parseTolerance(bad, 2), bad);
  assert.equal(withinTolerance(499n, 49937n, { kind: 'percent', basisPoints: 100n }), true);
  assert.equal(withinTolerance(500n, 49937n, { kind: 'percent', basisPoints: 100n }), false);
  assert.equal(withinTolerance(1n, 100n, null), false);
});

test('a whole payment that may be another customer\'s rounding, up or down, is nobody\'s: only a lone reserved amount within a unit takes it', () => {
  const tol = { underpaymentTolerance: { kind: 'percent' as const, basisPoints: 100n }, roundUnitMinor: 100n };
  // ₹500.00 paid: ₹499.37 rounded up, or short of ₹500.01? Neither settles.
  assert.deepEqual(kindOf(attribute(pay(50000n), [held(intent('up', 49937n)), held(intent('a', 50001n))], ctx(tol))), ['unmatched', 'ambiguous']);
  // A window narrower than a unit (0.10): ₹500.40 rounded down still makes ₹500.00 ambiguous for ₹500.05.
  assert.deepEqual(kindOf(attribute(pay(50000n), [held(intent('a', 50005n)), held(intent('down', 50040n))], ctx({ ...tol, attributionWindowMinor: 10n }))), ['unmatched', 'ambiguous']);
  // Alone within a unit: the short payment settles within the tolerance, as before.
  assert.deepEqual(kindOf(attribute(pay(50000n), [held(intent('a', 50001n))], ctx(tol))), ['credit', [['a', 50000n, true]]]);
  // Not a whole amount: the guard does not apply.
  assert.deepEqual(kindOf(attribute(pay(49990n), [held(intent('x', 49937n)), held(intent('a', 50001n))], ctx(tol))), ['credit', [['a', 49990n, true]]]);
});

// The intents a payment could be attributed to, read from a real SQLite file: what
// domain/attribution.ts decides on. A candidate missed here is a payment left unmatched; one
// too many can make a clear payment ambiguous.
import { amountToDb } from '../../../../src/db/amounts.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_POLICY, type PaymentPolicy } from '../../../../src/domain/payment-policy.ts';
import { candidates } from '../../../../src/services/ledger/candidates.ts';
import { addIntent, inTx, ledgerDb, payment, T0 } from '../../../helpers/ledger-db.ts';

const summary = (cs: Awaited<ReturnType<typeof candidates>>) => cs.map((c) => ({ pay: c.intent.payAmountMinor, holds: c.holdsAmount, credited: c.creditedMinor })).sort((a, b) => Number(a.pay - b.pay));

test('an exact amount: the intent holding it, and no other amount without a window', async (t) => {
  const db = await ledgerDb(t);
  await addIntent(db, 49937n);
  await addIntent(db, 49938n);
  const cs = await inTx(db, (tx) => candidates(tx, payment(49937n), DEFAULT_POLICY));
  assert.deepEqual(summary(cs), [{ pay: 49937n, holds: true, credited: 0n }]);
});

test('an attribution window reads the reserved amounts above the payment, up to the window', async (t) => {
  const db = await ledgerDb(t);
  for (const pay of [49937n, 49990n, 50100n]) await addIntent(db, pay);
  const policy: PaymentPolicy = { ...DEFAULT_POLICY, attributionWindowMinor: 100n };
  const cs = await inTx(db, (tx) => candidates(tx, payment(49900n), policy));
  assert.deepEqual(summary(cs).map((c) => c.pay), [49937n, 49990n]);
});

test('an amount whose reservation ended before the payment: its newest intent is a candidate that no longer holds it (to say why not)', async (t) => {
  const db = await ledgerDb(t);
  await addIntent(db, 49937n, { createdAt: T0 - 7_200_000, reservedUntil: T0 });
  const cs = await inTx(db, (tx) => candidates(tx, payment(49937n), DEFAULT_POLICY));
  assert.deepEqual(summary(cs), [{ pay: 49937n, holds: false, credited: 0n }]);
});

test('a whole payment also reads the amounts one unit below it (a payer who rounded up)', async (t) => {
  const db = await ledgerDb(t);
  await addIntent(db, 49937n);
  await addIntent(db, 49800n);
  const policy: PaymentPolicy = { ...DEFAULT_POLICY, roundUnitMinor: 100n };
  const cs = await inTx(db, (tx) => candidates(tx, payment(50000n), policy));
  assert.deepEqual(summary(cs).map((c) => c.pay), [49937n]);
  // The same amount with paise is no rounding: nothing below it is read.
  assert.deepEqual(await inTx(db, (tx) => candidates(tx, payment(49999n), policy)), []);
});

test('a Solana Pay reference names its intent whatever the amount, with what is already credited to it', async (t) => {
  const db = await ledgerDb(t);
  const a = await addIntent(db, 1_000_000_000n, { method: 'SOL', receiver: 'Wallet1', reference: 'RefA', paymentCount: 1 });
  await addIntent(db, 500_000_000n, { method: 'SOL', receiver: 'Wallet1', reference: 'RefB' });
  await db
    .insertInto('payments')
    .values({ id: 'pay_1', method: 'SOL', tx_ref: 'sig1', receiver: 'Wallet1', amount_minor: amountToDb(400_000_000n), references_json: null, source: 'solana', occurred_at: T0, observed_at: T0, status: 'matched', reason: null, intent_id: a.id, evidence_json: null, note: null })
    .execute();
  const cs = await inTx(db, (tx) => candidates(tx, payment(500_000_000n, { method: 'SOL', receiver: 'Wallet1', references: ['RefA'] }), DEFAULT_POLICY));
  assert.deepEqual(summary(cs), [{ pay: 1_000_000_000n, holds: true, credited: 400_000_000n }]);
  // Another receiver's intent is never named by a reference.
  assert.deepEqual(await inTx(db, (tx) => candidates(tx, payment(500_000_000n, { method: 'SOL', receiver: 'Wallet2', references: ['RefA'] }), DEFAULT_POLICY)), []);
});

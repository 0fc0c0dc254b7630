// A reference recorded once and seen again: the same facts are a duplicate; other facts are
// kept as a rejection, since either may be the customer's real payment (read from SQLite).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amountToDb } from '../../../../src/db/amounts.ts';
import { mismatchOf } from '../../../../src/services/ledger/mismatch.ts';
import { inTx, ledgerDb, payment, T0 } from '../../../helpers/ledger-db.ts';

async function recorded(db: Awaited<ReturnType<typeof ledgerDb>>, amount: number, evidence: Record<string, unknown> | null) {
  await db
    .insertInto('payments')
    .values({ id: 'pay_1', method: 'UPI', tx_ref: '411111111111', receiver: 'shop@hdfcbank', amount_minor: amountToDb(BigInt(amount)), references_json: null, source: 'imap', occurred_at: T0, observed_at: T0, status: 'matched', reason: null, intent_id: null, evidence_json: evidence ? JSON.stringify(evidence) : null, note: null })
    .execute();
}

const again = (amountMinor: bigint, accountMask = '4321', mail?: string) =>
  payment(amountMinor, { txRef: '411111111111', evidence: { accountMask }, ...(mail ? { origin: { ref: mail, raw: Buffer.from('raw mail') } } : {}) });

test('the same facts again are a duplicate of the recorded payment', async (t) => {
  const db = await ledgerDb(t);
  await recorded(db, 150, { accountMask: '4321' });
  assert.deepEqual(await inTx(db, (tx) => mismatchOf(tx, again(150n))), { existingId: 'pay_1' });
});

test('another amount or account is a rejection naming what differs, keyed by the mail it came from', async (t) => {
  const db = await ledgerDb(t);
  await recorded(db, 150, { accountMask: '4321' });
  const seen = await inTx(db, (tx) => mismatchOf(tx, again(500000n, '9999', 'imap:7:2')));
  assert.equal(seen.rejection?.reason, 'duplicate_reference_mismatch');
  assert.equal(seen.rejection?.ref, 'imap:7:2');
  assert.deepEqual(seen.rejection?.detail?.differs, ['amount', 'account']);
  assert.deepEqual(seen.rejection?.raw, Buffer.from('raw mail'));
  // Without a mail, the reference and the facts name it: the same facts twice are one rejection.
  const a = await inTx(db, (tx) => mismatchOf(tx, again(500000n)));
  const b = await inTx(db, (tx) => mismatchOf(tx, again(500000n)));
  const c = await inTx(db, (tx) => mismatchOf(tx, again(600000n)));
  assert.equal(a.rejection?.ref, b.rejection?.ref);
  assert.notEqual(a.rejection?.ref, c.rejection?.ref);
});

test('a transaction split over several intents is compared by its whole amount, not the first part', async (t) => {
  const db = await ledgerDb(t);
  await recorded(db, 60, { split: { part: 1, parts: 2, transaction_total_minor: '150' } });
  assert.deepEqual(await inTx(db, (tx) => mismatchOf(tx, again(150n))), { existingId: 'pay_1' });
  assert.deepEqual((await inTx(db, (tx) => mismatchOf(tx, again(60n)))).rejection?.detail?.differs, ['amount']);
});

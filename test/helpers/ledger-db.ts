// A migrated SQLite file with one merchant, and rows written the way the ledger reads them.
import { amountToDb } from '../../src/db/amounts.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { intentToRow } from '../../src/db/intent-rows.ts';
import { migrate, openDatabase, writeTx, type Db, type Tx } from '../../src/db/open.ts';
import type { Intent } from '../../src/domain/intent.ts';
import type { ReceivedPayment } from '../../src/domain/payment.ts';
import { pendingIntent } from './intent.ts';

export const T0 = Date.parse('2026-11-26T10:00:00Z');

export async function ledgerDb(t: TestContext): Promise<Db> {
  const dir = mkdtempSync(join(tmpdir(), 'payd-ledger-'));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  t.after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await migrate(db);
  await db
    .insertInto('merchants')
    .values({ id: 'm1', name: 'Shop', secret_hash: 'x', webhook_url: null, webhook_secret_sealed: 'x', webhook_secret_prev_sealed: null, webhook_secret_prev_until: null, secret_prev_hash: null, secret_prev_until: null, status: 'active', created_at: T0, updated_at: T0 })
    .execute();
  return db;
}

let n = 0;
/** A pending UPI intent asking `payMinor`, its amount reserved until `reservedUntil` (default: an hour on). */
export async function addIntent(db: Db, payMinor: bigint, o: Partial<Intent> & { reservedUntil?: number | null } = {}): Promise<Intent> {
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const intent = pendingIntent(id, payMinor, T0, { merchantId: 'm1', orderId: `o${n}`, ...o });
  await db.insertInto('intents').values(intentToRow(intent)).execute();
  if (o.reservedUntil !== null) {
    await db.insertInto('amount_reservations').values({ method: intent.method ?? '', receiver: intent.receiver, pay_amount_minor: amountToDb(payMinor), intent_id: id, reserved_until: o.reservedUntil ?? T0 + 3_600_000 }).execute();
  }
  return intent;
}

export function payment(amountMinor: bigint, over: Partial<ReceivedPayment> = {}): ReceivedPayment {
  return { method: 'UPI', receiver: 'shop@hdfcbank', amountMinor, txRef: `utr${amountMinor}`, occurredAt: T0 + 60_000, observedAt: T0 + 61_000, source: 'imap', ...over };
}

export const inTx = <T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> => writeTx(db, fn);

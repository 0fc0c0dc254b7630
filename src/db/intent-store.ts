import SQLite from 'better-sqlite3';
import { createGroupCommit, type GroupCommit } from './group-commit.ts';
import type { Db } from './open.ts';
import type { Awaitable } from '../domain/awaitable.ts';
import { amountFromDb, amountToDb } from './amounts.ts';
import type { Intent } from '../domain/intent.ts';
import { chosenColumns, INTENT_COLUMNS, intentFromColumns, intentFromRowIfAny, intentToRow } from './intent-rows.ts';
import type { IntentsTable } from './schema.ts';

/**
 * The API's hot path: intent creates and fetches. Two implementations with this interface:
 * SQLite's below, and PostgreSQL's (intent-store-pg.ts).
 *
 * SQLite: statements prepared once (building a Kysely query cost ~20 µs per statement, more
 * than SQLite running it), creates through group commit, and fetches on a second, read-only
 * connection, which sees only committed rows and never waits for a writer (WAL).
 */
export interface IntentStore {
  /** A committed intent by id (the read connection). */
  byId(id: string): Awaitable<Intent | undefined>;
  /**
   * Runs `fn` inside a write transaction with the write statements; resolves after COMMIT.
   * `fn` may run more than once (PostgreSQL re-runs it when a concurrent create of the same
   * order won the race; SQLite's group commit when another job of its group failed), so it
   * must not have effects outside the writer.
   */
  write<T>(fn: (w: IntentWriter) => Promise<T>): Promise<T>;
  close(): void;
}

/** Write statements, usable only inside IntentStore.write. */
export interface IntentWriter {
  byOrder(merchantId: string, orderId: string): Awaitable<Intent | undefined>;
  /** An intent by id, read for a change (PostgreSQL: locked to the end of the transaction). */
  byId(id: string): Awaitable<Intent | undefined>;
  /** Writes an open intent's choice (its method, amounts, link, quote and choices); returns the intent as written. */
  choose(intent: Intent): Awaitable<Intent>;
  /**
   * Pay amounts from `from` to `to` (inclusive) that some intent holds beyond `now` (one range
   * read instead of a try per amount), and how many of them intents of `merchantId` hold.
   */
  held(r: { method: string; receiver: string; from: bigint; to: bigint; now: number; merchantId: string }): Awaitable<HeldAmounts>;
  /**
   * Takes for `intentId` the smallest amount of from, from + step, … to (minor units), not a
   * multiple of `skipMultiplesOf`, that no intent holds beyond `now`, and returns it; null when none is free. On PostgreSQL an amount
   * another transaction is reserving at that moment is passed over, never waited for.
   */
  reserveFirst(r: ReserveRange): Awaitable<bigint | null>;
  insert(intent: Intent): Awaitable<void>;
  /** When the first of the held amounts from..to (minor units) of this receiver frees up, ms; null: none is held. */
  soonestRelease(r: { method: string; receiver: string; fromMinor: bigint; toMinor: bigint }): Awaitable<number | null>;
}

/** Amounts in base units (bigint); each store binds them in its own form (db/amounts.ts). */
export interface ReserveRange {
  method: string;
  receiver: string;
  from: bigint;
  to: bigint;
  step: bigint;
  /** Amounts that are multiples of this are never taken (the method's round unit); 0: none skipped. */
  skipMultiplesOf: bigint;
  intentId: string;
  reservedUntil: number;
  now: number;
}

export interface HeldAmounts {
  amounts: bigint[];
  byMerchant: number;
}

export function createIntentStore(db: Db, sqlite: SQLite.Database): IntentStore {
  const file = sqlite.name;
  // An in-memory database exists only on its own connection.
  const reader = file === ':memory:' || sqlite.memory ? sqlite : new SQLite(file, { fileMustExist: true });
  if (reader !== sqlite) {
    reader.pragma('busy_timeout = 5000');
    reader.pragma('query_only = ON');
    // 8 MB of pages instead of SQLite's 2 MB: fetches spread over a large table (300 intents among
    // 1,000,000: ~2.6 MB of index and table pages) otherwise re-read pages, 6.7 → 4.8 µs per fetch.
    reader.pragma('cache_size = -8192');
  }
  const byId = reader.prepare(`SELECT ${INTENT_COLUMNS.join(', ')} FROM intents WHERE id = ?`).raw(true);
  const byOrder = sqlite.prepare('SELECT * FROM intents WHERE merchant_id = ? AND order_id = ?');
  const byIdForWrite = sqlite.prepare('SELECT * FROM intents WHERE id = ?');
  const chosenNames = Object.keys(chosenColumns({ method: null, amountMinor: 0n, payAmountMinor: 0n, receiver: '', reference: null, paymentUri: '', pricing: null } as Intent));
  const choose = sqlite.prepare(`UPDATE intents SET ${chosenNames.map((c) => `${c} = @${c}`).join(', ')}, updated_at = @updated_at WHERE id = @id`);
  const reserve = sqlite.prepare(
    `INSERT INTO amount_reservations (method, receiver, pay_amount_minor, intent_id, reserved_until) VALUES (@method, @receiver, @payAmountMinor, @intentId, @reservedUntil)
     ON CONFLICT (method, receiver, pay_amount_minor) DO UPDATE SET intent_id = excluded.intent_id, reserved_until = excluded.reserved_until
     WHERE amount_reservations.reserved_until <= @now`,
  );
  const soonest = sqlite.prepare(
    'SELECT min(reserved_until) AS at FROM amount_reservations WHERE method = @method AND receiver = @receiver AND pay_amount_minor BETWEEN @fromMinor AND @toMinor',
  );
  const held = sqlite
    .prepare(
      `SELECT r.pay_amount_minor, i.merchant_id = @merchantId FROM amount_reservations r LEFT JOIN intents i ON i.id = r.intent_id
       WHERE r.method = @method AND r.receiver = @receiver AND r.pay_amount_minor BETWEEN @from AND @to AND r.reserved_until > @now`,
    )
    .raw(true);
  const heldAmounts = sqlite
    .prepare('SELECT pay_amount_minor FROM amount_reservations WHERE method = ? AND receiver = ? AND pay_amount_minor BETWEEN ? AND ? AND reserved_until > ?')
    .pluck(true);
  // Every column of INTENT_COLUMNS, so a new column is written (or fails here, at start) without a second list to update.
  const insert = sqlite.prepare(`INSERT INTO intents (${INTENT_COLUMNS.join(', ')}) VALUES (${INTENT_COLUMNS.map((c) => '@' + c).join(', ')})`);
  const writer: IntentWriter = {
    byOrder: (merchantId, orderId) => intentFromRowIfAny(byOrder.get(merchantId, orderId) as IntentsTable | undefined),
    byId: (id) => intentFromRowIfAny(byIdForWrite.get(id) as IntentsTable | undefined),
    choose: (intent) => {
      choose.run({ ...chosenColumns(intent), updated_at: intent.updatedAt, id: intent.id });
      return intent;
    },
    held: (r) => {
      const rows = held.all({ method: r.method, receiver: r.receiver, from: amountToDb(r.from), to: amountToDb(r.to), now: r.now, merchantId: r.merchantId }) as [string, number | null][];
      return { amounts: rows.map((row) => amountFromDb(row[0])), byMerchant: rows.filter((row) => row[1] === 1).length };
    },
    reserveFirst: (r) => {
      const take = (amount: bigint) => reserve.run({ method: r.method, receiver: r.receiver, payAmountMinor: amountToDb(amount), intentId: r.intentId, reservedUntil: r.reservedUntil, now: r.now }).changes > 0;
      const allowed = (amount: bigint) => r.skipMultiplesOf === 0n || amount % r.skipMultiplesOf !== 0n;
      // The first amount (the price itself) is usually free: one statement.
      if (allowed(r.from) && take(r.from)) return r.from;
      // Inside the write lock nothing changes meanwhile: read the held ones once, try the rest.
      const held = new Set(heldAmounts.all(r.method, r.receiver, amountToDb(r.from + r.step), amountToDb(r.to), r.now) as string[]);
      for (let amount = r.from + r.step; amount <= r.to; amount += r.step) {
        if (allowed(amount) && !held.has(amountToDb(amount)) && take(amount)) return amount;
      }
      return null;
    },
    soonestRelease: (r) => (soonest.get({ method: r.method, receiver: r.receiver, fromMinor: amountToDb(r.fromMinor), toMinor: amountToDb(r.toMinor) }) as { at: number | null }).at,
    insert: (intent) => {
      insert.run(intentToRow(intent));
    },
  };
  const group: GroupCommit = createGroupCommit(db, sqlite);
  return {
    byId: (id) => {
      const columns = byId.get(id) as Parameters<typeof intentFromColumns>[0] | undefined;
      return columns && intentFromColumns(columns);
    },
    write: (fn) => group.run(() => fn(writer)),
    close: () => {
      if (reader !== sqlite) reader.close();
    },
  };
}

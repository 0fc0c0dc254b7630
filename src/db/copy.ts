import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * What `payd db copy` does with each table of the schema. A Record over every table name,
 * so a table added to schema.ts does not compile until someone decides here whether it moves.
 * Listed in copy order (parents before the rows that point at them).
 */
export const COPY_PLAN: Record<keyof Database, { copy: true; identity?: string } | { copy: false; why: string }> = {
  settings: { copy: true },
  merchants: { copy: true },
  // Before the intents that name them.
  payment_links: { copy: true },
  intents: { copy: true },
  amount_reservations: { copy: true },
  payments: { copy: true },
  rejections: { copy: true },
  events: { copy: true },
  webhook_attempts: { copy: true, identity: 'id' },
  sequences: { copy: true },
  checkpoints: { copy: true },
  audit_log: { copy: true, identity: 'id' },
  sandbox_transfers: { copy: true, identity: 'seq' },
  upi_parked_mail: { copy: true },
  upi_unread_alerts: { copy: true },
  upi_inspecting: { copy: true },
  mailbox_oauth_tokens: { copy: true },
  // The console's passkeys and sessions move with the data: an operator stays signed in.
  console_invites: { copy: true },
  console_passkeys: { copy: true },
  console_sessions: { copy: true },
  console_challenges: { copy: false, why: 'a sign-in in progress lives five minutes; it is started again' },
  // Pending messages still go out from the new store; sent ones keep their dedup keys (no second message).
  notifications: { copy: true },
  telegram_actions: { copy: true },
  // Who runs the workers is a fact about live processes, not data: the nodes on the new store elect their own.
  // Refetched within one refresh by the new leader; a copied rate would only be older.
  rates: { copy: false, why: 'a cache the worker leader refills within pricing.refreshSeconds' },
  worker_lease: { copy: false, why: 'held by a running process; the new nodes take it themselves' },
};

export type TableName = keyof Database;
export const COPIED_TABLES = (Object.keys(COPY_PLAN) as TableName[]).filter((t) => COPY_PLAN[t].copy);

/** Kysely's own bookkeeping: each store has its migrations run by `migrate`, never copied. */
const isMigrationTable = (name: string) => name.startsWith('kysely_migration');

type Row = Record<string, unknown>;
type AnyDb = Kysely<any>;

/** The tables of a SQLite database (its own internals and Kysely's bookkeeping left out). */
export async function sqliteTables(db: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(db);
  return rows.map((r) => r.name).filter((n) => !isMigrationTable(n));
}

/** Column names of a SQLite table, in table order. */
export async function sqliteColumns(db: AnyDb, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table}) order by cid`.execute(db);
  return rows.map((r) => r.name);
}

/** Column names of a PostgreSQL table in the current schema. */
export async function postgresColumns(db: AnyDb, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * Reads a SQLite table in rowid order, `batch` rows at a time (keyset paging: each page is one
 * indexed range read, so memory holds one page whatever the table's size).
 */
export async function* sqliteBatches(db: AnyDb, table: string, columns: string[], batch: number): AsyncGenerator<Row[]> {
  const cols = sql.join(columns.map((c) => sql.ref(c)));
  let after = -Infinity;
  for (;;) {
    const { rows } = await sql<Row & { __rowid: number }>`select rowid as __rowid, ${cols} from ${sql.table(table)} where rowid > ${after === -Infinity ? -9007199254740991 : after} order by rowid limit ${batch}`.execute(db);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.__rowid;
    yield rows.map(({ __rowid: _, ...row }) => row);
    if (rows.length < batch) return;
  }
}

/**
 * Runs `fn` on one pinned connection inside a read transaction: every read sees the same
 * snapshot (WAL), whatever another process writes meanwhile. Always rolled back.
 */
export async function inSqliteSnapshot<T>(db: AnyDb, fn: (snapshot: AnyDb) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    try {
      return await fn(conn);
    } finally {
      await sql`rollback`.execute(conn).catch(() => {});
    }
  });
}

/** Whether the database answers at all (the copy's first contact with the target). */
export async function reachable(db: AnyDb): Promise<void> {
  await sql`select 1`.execute(db);
}

export async function countRows(db: AnyDb, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string | bigint }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * After rows came in with their own ids, the PostgreSQL sequence behind an identity / serial
 * column must continue after the highest copied id, or the next insert would collide.
 */
export async function continueIdentity(db: AnyDb, table: string, column: string): Promise<void> {
  await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 1), (select count(*) > 0 from ${sql.table(table)}))`.execute(db);
}

/** Rows a fresh PostgreSQL migration writes itself (the event counter at 0): present, yet the database is empty. */
export async function seededOnly(db: AnyDb, table: TableName): Promise<boolean> {
  if (table !== 'sequences') return false;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from sequences where value <> 0`.execute(db);
  return Number(rows[0]!.n) === 0;
}

/** A postgres:// URL for messages: the password (and any password in the query) replaced by ***. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const key of [...u.searchParams.keys()]) if (/pass|secret|key/i.test(key)) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return '(an unparseable URL)';
  }
}

import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config/read.ts';
import { COPIED_TABLES, COPY_PLAN, continueIdentity, countRows, inSqliteSnapshot, postgresColumns, reachable, redactUrl, seededOnly, sqliteBatches, sqliteColumns, sqliteTables, type TableName } from '../db/copy.ts';
import { processHasFileOpen } from '../db/file-holder.ts';
import { migrate, openDatabase, type Db } from '../db/open.ts';
import { openPostgres } from '../db/postgres.ts';
import { PaydError } from '../domain/errors.ts';
import type { Clock } from '../domain/ports.ts';

export interface DbCopyDeps {
  /** The SQLite database (migrated), read inside one read transaction: a consistent snapshot. */
  source: Db;
  /** The PostgreSQL database; migrated here, then filled in one transaction. */
  target: Db;
  migrateTarget: (db: Db) => Promise<string[]>;
  clock: Clock;
  /** Rows per read and per insert: memory holds one batch, whatever the database's size. */
  batchRows?: number;
  /** Called after each table is in (table, rows), e.g. to print progress. */
  progress?: (table: TableName, rows: number) => void;
  /**
   * Whether the process named by an unexpired worker lease has the source database open:
   * false for a snapshot (its lease row was copied from the live file, whose daemon still runs),
   * null when that cannot be told (then the copy refuses, as it must for a live source).
   */
  leaseHolderHasSource?: (lease: { host: string; pid: number }) => boolean | null;
}

export interface DbCopyReport {
  /** Rows per copied table: counted in the source snapshot and again in the target before commit (equal). */
  tables: Array<{ table: TableName; rows: number }>;
  skipped: Array<{ table: TableName; why: string }>;
  /** Migrations the target needed first. */
  migrated: string[];
  /** The master key fingerprint that came along (null: the source never used its key). */
  masterKeyFingerprint: string | null;
}

const DEFAULT_BATCH = 250;
const MAX_PARAMETERS = 60_000;

/**
 * Copies a SQLite shop into an empty PostgreSQL database: every table payd knows (an unknown
 * one stops the copy before anything is written), in batches, in one target transaction that
 * commits only if every table's row count equals the source's. The master key fingerprint is
 * a settings row like any other, so the nodes on the new store must use the same master key.
 */
export async function copyDatabase(deps: DbCopyDeps): Promise<DbCopyReport> {
  const batch = deps.batchRows ?? DEFAULT_BATCH;
  const source = deps.source as Kysely<any>;

  const unknown = (await sqliteTables(source)).filter((t) => !(t in COPY_PLAN));
  if (unknown.length) {
    throw new PaydError('CONFLICT', `the SQLite database has tables payd does not know (${unknown.join(', ')}): written by a newer payd or by hand; nothing was copied`);
  }
  const lease = await deps.source.selectFrom('worker_lease').selectAll().executeTakeFirst();
  // A lease row in a snapshot names the daemon of the file it was taken from: not a holder of this one.
  const held = lease && lease.expires_at > deps.clock.now() ? (deps.leaseHolderHasSource?.(lease) ?? null) : false;
  if (lease && held !== false) {
    throw new PaydError(
      'CONFLICT',
      `a payd process still holds this SQLite database's worker lease (host ${lease.host}, pid ${lease.pid}): stop every payd serve first, then copy; nothing was copied. ` +
        `For a trial copy while the shop runs, copy a snapshot instead: sqlite3 <database> "VACUUM INTO '<snapshot>'", then payd db copy --from <snapshot>` +
        (held === null ? ` (run it as the daemon's user on the daemon's host: payd tells a snapshot from the live file by whether that process has the file open)` : ''),
    );
  }

  let migrated: string[];
  try {
    migrated = await deps.migrateTarget(deps.target);
  } catch (err) {
    throw new PaydError('UPSTREAM', `could not migrate the target database: ${(err as Error).message}`, { cause: err });
  }
  const target = deps.target as Kysely<any>;

  const columns = new Map<TableName, string[]>();
  for (const table of COPIED_TABLES) {
    const from = await sqliteColumns(source, table);
    const into = new Set(await postgresColumns(target, table));
    if (into.size === 0) throw new PaydError('CONFLICT', `the target database has no table ${table} after migrating: not a payd schema; nothing was copied`);
    const missing = from.filter((c) => !into.has(c));
    if (missing.length) throw new PaydError('CONFLICT', `the target's ${table} has no column ${missing.join(', ')}: the two schemas differ (is this payd older than the one that wrote the SQLite file?); nothing was copied`);
    columns.set(table, from);
  }
  const holding: string[] = [];
  for (const table of COPIED_TABLES) {
    const n = await countRows(target, table);
    if (n > 0 && !(await seededOnly(target, table))) holding.push(`${table}: ${n}`);
  }
  if (holding.length) {
    throw new PaydError('CONFLICT', `the target database is not empty (${holding.join(', ')}): copy only into a new, empty database (was a node already started on it?); nothing was copied`);
  }

  // Every read below from one snapshot of the SQLite file.
  return inSqliteSnapshot(source, async (src) => {
    const counts = new Map<TableName, number>();
    for (const table of COPIED_TABLES) counts.set(table, await countRows(src, table));
    const tables = await target.transaction().execute(async (tx) => {
      const out: DbCopyReport['tables'] = [];
      for (const table of COPIED_TABLES) {
        // The target's own seed rows (the event counter at 0) give way to the shop's.
        if (await seededOnly(tx, table)) await tx.deleteFrom(table).execute();
        const cols = columns.get(table)!;
        // One INSERT carries at most 65,535 parameters (PostgreSQL's protocol limit): a wide table gets smaller batches.
        const rowsPerInsert = Math.max(1, Math.min(batch, Math.floor(MAX_PARAMETERS / cols.length)));
        for await (const rows of sqliteBatches(src, table, cols, rowsPerInsert)) await tx.insertInto(table).values(rows).execute();
        const plan = COPY_PLAN[table];
        if (plan.copy && plan.identity) await continueIdentity(tx, table, plan.identity);
        const copied = await countRows(tx, table);
        const expected = counts.get(table)!;
        if (copied !== expected) throw new PaydError('INTERNAL', `row counts differ for ${table} (source ${expected}, target ${copied}); rolled back, nothing was copied`);
        out.push({ table, rows: copied });
        deps.progress?.(table, copied);
      }
      return out;
    });
    const fingerprint = await src.selectFrom('settings').select('value').where('key', '=', 'master_key_fingerprint').executeTakeFirst();
    const skipped = (Object.keys(COPY_PLAN) as TableName[]).flatMap((t) => {
      const plan = COPY_PLAN[t];
      return plan.copy ? [] : [{ table: t, why: plan.why }];
    });
    return { tables, skipped, migrated, masterKeyFingerprint: (fingerprint?.value as string | undefined) ?? null };
  });
}

export interface CopyShopOptions {
  config: Config;
  /** The SQLite file (default: the config's database.file), relative to `cwd`. */
  from?: string;
  cwd: string;
  /** The target postgres:// URL (never printed: messages show it without the password). */
  to: string;
  batchRows?: number;
  clock: Clock;
  progress?: (table: TableName, rows: number) => void;
}

/** `payd db copy`: opens the SQLite file and the PostgreSQL database, copies, closes both. */
export async function copyShop(options: CopyShopOptions): Promise<DbCopyReport & { source: string; target: string }> {
  const shown = redactUrl(options.to);
  if (options.from === undefined && options.config.database.url) throw new PaydError('INVALID_REQUEST', 'this config already uses database.url (PostgreSQL): name the SQLite file to copy with --from <file>');
  const file = options.from !== undefined ? resolve(options.cwd, options.from) : options.config.database.file;
  if (!existsSync(file)) throw new PaydError('NOT_FOUND', `no SQLite database at ${file}`);
  const source = openDatabase(file);
  // No statement timeout: counting and filling big tables may take longer than the API's limit.
  const target = openPostgres({ url: options.to, pool: 2, statementTimeoutMs: 0 });
  try {
    await migrate(source);
    try {
      await reachable(target);
    } catch (err) {
      throw new PaydError('UPSTREAM', `cannot reach the target database ${shown}: ${hidePassword(cause(err), options.to)}`);
    }
    try {
      const leaseHolderHasSource = (lease: { host: string; pid: number }) => (lease.host === hostname() ? processHasFileOpen(lease.pid, file) : null);
      const report = await copyDatabase({ source, target, migrateTarget: migrate, clock: options.clock, batchRows: options.batchRows, progress: options.progress, leaseHolderHasSource });
      return { ...report, source: file, target: shown };
    } catch (err) {
      if (err instanceof PaydError) throw err;
      throw new PaydError('INTERNAL', `the copy into ${shown} failed and was rolled back (nothing was copied): ${hidePassword(cause(err), options.to)}`);
    }
  } finally {
    await target.destroy().catch(() => {});
    await source.destroy();
  }
}

/** The driver's own words (a BUSY mapping hides them behind "busy or unreachable"). */
const cause = (err: unknown): string => {
  const inner = (err as { cause?: unknown }).cause ?? err;
  return inner instanceof Error ? inner.message : String(inner);
};

/** A driver message never repeats the password, even if it quotes the URL. */
function hidePassword(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    /* unparseable: nothing to hide */
  }
  return password ? message.split(password).join('***') : message;
}

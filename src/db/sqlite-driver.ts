import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { PaydError } from '../domain/errors.ts';

/**
 * better-sqlite3 runs every statement synchronously: while another process holds the
 * write lock, a long busy_timeout would freeze the whole event loop (every request, every
 * source). So the connection waits at most a few ms inside SQLite, and a statement or
 * BEGIN that meets SQLITE_BUSY is retried after an asynchronous sleep, without holding
 * anything, so reads and other work go on meanwhile. Past `lockWaitMs` it fails with
 * PaydError BUSY (HTTP 503 with Retry-After).
 *
 * One SQLite connection serves the process. Outside a transaction a statement runs at
 * once (it is atomic and synchronous); a transaction owns the connection from BEGIN to
 * COMMIT/ROLLBACK, and statements from elsewhere wait for it to end.
 */
export interface BusyOptions {
  /** Total time a statement or BEGIN keeps retrying on SQLITE_BUSY, ms. */
  lockWaitMs: number;
}

/** What the driver needs of a better-sqlite3 database (open.ts adds a statement cache). */
export interface StatementSource {
  prepare(sql: string): SQLite.Statement;
  close(): void;
}

const isBusy = (err: unknown): boolean => typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('SQLITE_BUSY');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BEGIN = /^\s*begin\b/i;
const END = /^\s*(commit|rollback|end)\b/i;

/** How long a write keeps trying to get the lock before it answers BUSY, ms. */
export const LOCK_WAIT_MS = 3000;

/** Runs a synchronous statement, retrying SQLITE_BUSY after async sleeps up to `lockWaitMs`. */
export async function retryBusy<T>(fn: () => T, lockWaitMs = LOCK_WAIT_MS): Promise<T> {
  const deadline = Date.now() + lockWaitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err)) throw err;
      if (Date.now() >= deadline) throw busyError(err);
      await sleep(backoffMs(attempt));
    }
  }
}

const backoffMs = (attempt: number) => Math.min(5 * 2 ** attempt, 100);

export function busyError(cause?: unknown): PaydError {
  return new PaydError('BUSY', 'the database is busy (another process holds its write lock); try again shortly', { retryAfter: 1, cause });
}

class BusyRetryDriver implements Driver {
  #owner: Connection | null = null;
  #idle: Array<() => void> = [];

  constructor(
    readonly sqlite: StatementSource,
    readonly opts: BusyOptions,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Connection(this);
  }

  // Kysely's own transactions take the write lock up front too (no read-to-write upgrade).
  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    // A pinned connection released with its transaction still open would block everyone.
    if (this.#owner === conn) {
      try {
        this.sqlite.prepare('rollback').run();
      } catch {
        /* already ended */
      }
      this.release();
    }
  }
  async destroy(): Promise<void> {
    this.sqlite.close();
  }

  owner(): Connection | null {
    return this.#owner;
  }

  /** Resolves when the current transaction ends (callers check again: another may have begun). */
  idle(): Promise<void> {
    return new Promise<void>((r) => this.#idle.push(r));
  }

  take(conn: Connection): void {
    this.#owner = conn;
  }

  release(): void {
    this.#owner = null;
    const waiting = this.#idle;
    this.#idle = [];
    for (const wake of waiting) wake();
  }

  run(sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    const stmt = this.sqlite.prepare(sql);
    if (stmt.reader) return { rows: stmt.all(parameters as unknown[]) as unknown[] };
    const { changes, lastInsertRowid } = stmt.run(parameters as unknown[]);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }
}

class Connection implements DatabaseConnection {
  constructor(readonly d: BusyRetryDriver) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = q;
    const deadline = Date.now() + this.d.opts.lockWaitMs;
    for (let attempt = 0; ; attempt++) {
      // Checked and taken with no await in between, so two BEGINs never both pass.
      while (this.d.owner() && this.d.owner() !== this) await this.d.idle();
      const begins = BEGIN.test(sql) && this.d.owner() !== this;
      if (begins) this.d.take(this);
      try {
        const result = this.d.run(sql, parameters) as QueryResult<R>;
        if (END.test(sql) && this.d.owner() === this) this.d.release();
        return result;
      } catch (err) {
        if (begins || (END.test(sql) && /^\s*rollback/i.test(sql))) this.d.release();
        // Inside a transaction the lock is ours; a BUSY there (a COMMIT meeting a checkpoint) is retried as well.
        if (!isBusy(err)) throw err;
        if (Date.now() >= deadline) throw busyError(err);
        await sleep(backoffMs(attempt));
      }
    }
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used');
  }
}

/** A Kysely dialect over one better-sqlite3 connection with asynchronous lock waits. */
export function busyRetryDialect(sqlite: StatementSource, opts: BusyOptions): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new BusyRetryDriver(sqlite, opts),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Pool, PoolConfig } from 'pg';
import { PaydError } from '../domain/errors.ts';
import { createGate, type Gate } from './pool-gate.ts';
import type { Database } from './schema.ts';

export interface PostgresOptions {
  url: string;
  /** Connections in this process's pool. */
  pool: number;
  /** Statements running longer are cancelled (0: no limit), ms. */
  statementTimeoutMs: number;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;
/** How long a statement waits for a row lock before it answers BUSY (SQLite's lock wait, sqlite-driver.ts). */
const LOCK_TIMEOUT_MS = 3000;
/** How long opening a new connection may take before it answers BUSY (the database out of reach), ms. */
const CONNECT_TIMEOUT_MS = 5000;
/**
 * How long a query may wait for one of the pool's connections, all busy, before it answers BUSY, ms.
 * A burst of creates queues here: at 5 s (the connect timeout, which pg applies to this wait too)
 * creates of one burst on a loaded 2-core machine answered 503. Within the 30-60 s
 * that HTTP clients and proxies usually wait.
 */
export const POOL_WAIT_MS = 30_000;

/** Accepts postgres:// and postgresql:// URLs; anything else names the config path. */
export function checkPostgresUrl(url: string): void {
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {
    /* reported below */
  }
  if (!u || (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')) {
    throw new PaydError('CONFIG_INVALID', 'database.url: expected a postgres:// URL, e.g. postgres://payd:PASSWORD@db.internal:5432/payd');
  }
}

/** host:port/database of a URL, without user or password (for logs and `payd doctor`). */
export function describePostgresUrl(url: string): string {
  const u = new URL(url);
  return `postgres://${u.host}${u.pathname}`;
}

/**
 * Kysely over a pg.Pool. `pg` is imported when the first connection is made, so SQLite users
 * never load it, and nothing connects before the first query. Closing the Kysely instance ends the pool.
 */
export function openPostgres(o: PostgresOptions): Kysely<Database> {
  checkPostgresUrl(o.url);
  const pool = async (): Promise<PostgresPool> => {
    const pg = (await import('pg')).default;
    const config: PoolConfig = {
      connectionString: o.url,
      max: o.pool,
      application_name: 'payd',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: o.statementTimeoutMs || undefined,
      lock_timeout: LOCK_TIMEOUT_MS,
      // A transaction left open by a stuck process must not hold row locks for ever.
      idle_in_transaction_session_timeout: 60_000,
      // Per pool, not pg.types (process-wide): BIGINT columns hold ms and minor units < 2^53,
      // read as numbers like SQLite's INTEGER; aggregates (SUM) come back NUMERIC.
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === INT8_OID || oid === NUMERIC_OID) return (v: string) => (v === null ? null : Number(v));
          return pg.types.getTypeParser(oid, format as 'text');
        }) as never,
      },
    };
    return errorMapping(new pg.Pool(config), createGate(o.pool, POOL_WAIT_MS, () => new PaydError('BUSY', 'the database is busy: every pooled connection stayed in use; try again shortly', { retryAfter: 1 })));
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** SQLSTATEs that mean "try again shortly": the same answer SQLite's lock waits give (BUSY, 503). */
const TRANSIENT = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available (lock_timeout)
  '57014', // query_canceled (statement_timeout)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
  '53300', // too_many_connections
]);

const NETWORK = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|EAI_AGAIN)$/;

/** Whether a PostgreSQL error means a unique index refused the row. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * A transaction PostgreSQL aborted to break a deadlock or a serialization conflict: running
 * it again from the start is correct (nothing of it was committed).
 */
export function isRetryableConflict(err: unknown): boolean {
  const cause = err instanceof PaydError ? (err.cause as { code?: unknown } | undefined) : (err as { code?: unknown });
  return cause?.code === '40P01' || cause?.code === '40001';
}

export function mapPostgresError(err: unknown): unknown {
  if (err instanceof PaydError) return err;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (TRANSIENT.has(code) || code.startsWith('08') || NETWORK.test(code) || /Connection terminated|timeout exceeded when trying to connect/i.test(String(e?.message ?? ''))) {
    return new PaydError('BUSY', 'the database is busy or unreachable; try again shortly', { retryAfter: 1, cause: err });
  }
  return err;
}

function isConnectionLoss(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  return code.startsWith('08') || code.startsWith('57P') || NETWORK.test(code) || /Connection terminated/i.test(String(e?.message ?? ''));
}

/**
 * The pool with connect/query errors mapped to PaydError BUSY where retrying will help, behind
 * `gate` (as many places as the pool has connections), so pg's own queue is never used.
 */
function errorMapping(pool: Pool, gate: Gate): PostgresPool {
  // An idle client losing its connection emits on the pool: without a listener that would crash the process.
  pool.on('error', () => {});
  // A checked-out client whose connection dies emits 'error' too (the pool listens only while
  // it is idle): without a listener that would crash the process; the query in flight fails anyway.
  const guarded = new WeakSet<object>();
  return {
    async connect(): Promise<PostgresPoolClient> {
      await gate.enter();
      let client;
      try {
        client = await pool.connect();
      } catch (err) {
        gate.leave();
        throw mapPostgresError(err);
      }
      const c = client;
      let broken = false;
      let released = false;
      if (!guarded.has(c)) {
        guarded.add(c);
        c.on('error', () => {});
      }
      return {
        query: (async (text: string, params: readonly unknown[]) => {
          try {
            return await c.query(text, params as unknown[]);
          } catch (err) {
            const mapped = mapPostgresError(err);
            if (mapped !== err && isConnectionLoss(err)) broken = true;
            throw mapped;
          }
        }) as unknown as PostgresPoolClient['query'],
        // A client whose connection died is destroyed, not handed to the next caller.
        release: () => {
          if (released) return;
          released = true;
          c.release(broken);
          gate.leave();
        },
      };
    },
    end: () => pool.end(),
  };
}

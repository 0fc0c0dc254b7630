import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Pool, PoolConfig } from 'pg';
import { PaydError } from '../domain/errors.ts';
import { activeFence, FENCE_CHECK, FencedOut, type LeaseFence } from './fence.ts';
import { isDatabaseGone, mapPostgresError } from './pg-errors.ts';
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
/** The same wait while the database is known gone (its last query failed so): answer soon instead. */
const GONE_POOL_WAIT_MS = 1000;
/**
 * A query's client-side deadline beyond the server's statement_timeout, ms: the server cancels
 * first when it can; this bounds the wait when it cannot (a partition, a frozen server).
 */
const DEADLINE_MARGIN_MS = 1000;
/**
 * A session idle inside a transaction this long is ended by the server, ms: shorter than the
 * worker lease, so a node cut off in the middle of a fenced write (which locks the lease row)
 * does not delay the next leader's takeover beyond the lease's own expiry.
 */
const IDLE_IN_TRANSACTION_MS = 10_000;
/** TCP keepalive on the pool's sockets: an idle connection to a vanished peer is found and dropped. */
const KEEPALIVE_DELAY_MS = 5000;

/**
 * How long the client waits for any one answer from the database before it takes the
 * connection as lost, ms: the statement timeout plus a margin; with no statement timeout
 * (`payd db copy`'s long statements) none, and TCP keepalive alone finds a dead peer.
 */
export function queryDeadlineMs(statementTimeoutMs: number): number {
  return statementTimeoutMs > 0 ? statementTimeoutMs + DEADLINE_MARGIN_MS : 0;
}

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
export function openPostgres(options: PostgresOptions): Kysely<Database> {
  checkPostgresUrl(options.url);
  const pool = async (): Promise<PostgresPool> => {
    const pg = (await import('pg')).default;
    const deadlineMs = queryDeadlineMs(options.statementTimeoutMs);
    const config: PoolConfig = {
      connectionString: options.url,
      max: options.pool,
      application_name: 'payd',
      connectionTimeoutMillis: deadlineMs > 0 ? Math.min(CONNECT_TIMEOUT_MS, deadlineMs) : CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      statement_timeout: options.statementTimeoutMs || undefined,
      lock_timeout: LOCK_TIMEOUT_MS,
      // A transaction left open by a stuck or cut-off process must not hold row locks (the
      // worker lease's among them, fence.ts) for long: payd never idles inside one.
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      // Per pool, not pg.types (process-wide): BIGINT columns hold ms and counts < 2^53, read as
      // numbers like SQLite's INTEGER. NUMERIC (the amounts, db/amounts.ts, and their sums) stays
      // text: it may exceed what a number carries exactly.
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === INT8_OID) return (v: string) => (v === null ? null : Number(v));
          return pg.types.getTypeParser(oid, format as 'text');
        }) as never,
      },
    };
    const gate = createGate(options.pool, () => new PaydError('BUSY', 'the database is busy: every pooled connection stayed in use; try again shortly', { retryAfter: 1 }));
    return errorMapping(new pg.Pool(config), gate, { deadlineMs });
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * The pool with connect/query errors mapped to PaydError BUSY where retrying will help, behind
 * `gate` (as many places as the pool has connections), so pg's own queue is never used.
 *
 * A database that went silent (a partition: no reset, no error, just no bytes) must not hold
 * requests until the network heals: every query has a client-side deadline, and a connection
 * that misses it is destroyed, never handed to the next caller (its answer could still arrive
 * and be read as the next query's). Once the database is known gone, callers queued for a
 * connection are answered at once and new ones wait only briefly, until a query succeeds again.
 */
function errorMapping(pool: Pool, gate: Gate, o: { deadlineMs: number }): PostgresPool {
  // An idle client losing its connection emits on the pool: without a listener that would crash the process.
  pool.on('error', () => {});
  // A checked-out client whose connection dies emits 'error' too (the pool listens only while
  // it is idle): without a listener that would crash the process; the query in flight fails anyway.
  const guarded = new WeakSet<object>();
  let gone = false;
  const unreachable = () => new PaydError('BUSY', 'the database is unreachable; try again shortly', { retryAfter: 1 });
  const failed = (err: unknown): unknown => {
    if (isDatabaseGone(err) && !gone) {
      gone = true;
      gate.failWaiting(unreachable);
    }
    return mapPostgresError(err);
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      await gate.enter(gone ? GONE_POOL_WAIT_MS : POOL_WAIT_MS);
      let client;
      try {
        client = await pool.connect();
      } catch (err) {
        gate.leave();
        throw failed(err);
      }
      const c = client;
      let broken = false;
      let released = false;
      if (!guarded.has(c)) {
        guarded.add(c);
        c.on('error', () => {});
      }
      const run = async (text: string, params: readonly unknown[]) => {
        const answer = c.query(text, params as unknown[]);
        if (o.deadlineMs <= 0) return answer;
        answer.catch(() => {}); // after a missed deadline nobody awaits it
        let timer: NodeJS.Timeout | undefined;
        const missed = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            broken = true;
            destroySocket(c);
            reject(new PaydError('BUSY', 'the database is unreachable; try again shortly', { retryAfter: 1, cause: new Error(`the database did not answer within ${o.deadlineMs} ms`) }));
          }, o.deadlineMs);
        });
        try {
          return await Promise.race([answer, missed]);
        } finally {
          clearTimeout(timer);
        }
      };
      // Whether a transaction is open on this client (Kysely sends these as plain statements).
      let inTransaction = false;
      const fenceCheck = async (fence: LeaseFence) => {
        const { rows } = await run(FENCE_CHECK.text, FENCE_CHECK.params(fence));
        if (rows.length === 0) throw new FencedOut(fence);
      };
      // A worker's statement: its transaction commits only if the lease take it runs under is
      // still the live one (fence.ts); a write outside a transaction gets one of its own for that.
      const fenced = async (fence: LeaseFence, text: string, params: readonly unknown[]) => {
        const verb = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase();
        if (verb === 'begin' || verb === 'start') {
          const r = await run(text, params);
          inTransaction = true;
          return r;
        }
        if (verb === 'commit') {
          await fenceCheck(fence);
          inTransaction = false;
          return run(text, params);
        }
        if (verb === 'rollback') {
          inTransaction = false;
          return run(text, params);
        }
        if (inTransaction || !WRITES.test(text)) return run(text, params);
        await run('begin', []);
        try {
          const r = await run(text, params);
          await fenceCheck(fence);
          await run('commit', []);
          return r;
        } catch (err) {
          if (!broken) await run('rollback', []).catch(() => {});
          throw err;
        }
      };
      return {
        query: (async (text: string, params: readonly unknown[]) => {
          try {
            const fence = activeFence();
            const result = fence ? await fenced(fence, text, params) : await run(text, params);
            gone = false;
            return result;
          } catch (err) {
            if (isDatabaseGone(err)) broken = true;
            throw failed(err);
          }
        }) as unknown as PostgresPoolClient['query'],
        // A client whose connection died or missed its deadline is destroyed, not handed to the next caller.
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

/** Statements that write (a CTE ending in a write included). */
const WRITES = /^\s*(insert|update|delete|with\b[\s\S]*\b(insert|update|delete)\b)/i;

/** Closes a client's socket at once (ending it politely would wait on the silent peer). */
function destroySocket(client: object): void {
  (client as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
}

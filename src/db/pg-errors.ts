import { PaydError } from '../domain/errors.ts';

/**
 * What a PostgreSQL failure means to payd, decided in this one place:
 * - `gone`: the database or the connection went away (a restart, a crash, a partition, a
 *   connection that missed its deadline). Nothing of an uncommitted transaction survived it;
 *   the same work on a new connection can succeed once the database is back.
 * - `busy`: the database is there but refused for now (lock or statement timeout, too many
 *   connections).
 * - `conflict`: PostgreSQL aborted the transaction to break a deadlock or a serialization
 *   conflict; running it again from the start is correct.
 * - `other`: anything else (a constraint, a bug): not retried, not hidden.
 */
export type PgErrorKind = 'gone' | 'busy' | 'conflict' | 'other';

const GONE_SQLSTATES = new Set([
  '57P01', // admin_shutdown (pg_ctl -m fast)
  '57P02', // crash_shutdown (another backend crashed)
  '57P03', // cannot_connect_now (starting up, shutting down, recovering)
]);
const BUSY_SQLSTATES = new Set([
  '55P03', // lock_not_available (lock_timeout)
  '57014', // query_canceled (statement_timeout)
  '53300', // too_many_connections
]);
const CONFLICT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Socket errors of the connection itself. */
const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|EAI_AGAIN)$/;
/**
 * The pg driver's own words for a lost connection, which carry no code: the socket closed
 * under a query, a client used after its connection failed (e.g. the ROLLBACK after a fast
 * shutdown killed the transaction), a pool's connect giving up.
 */
const GONE_MESSAGES = /Connection terminated|not queryable|Client was closed|terminating connection|timeout exceeded when trying to connect|Query read timeout|the database did not answer/i;

/** The driver's error behind a PaydError that wraps it, or the error itself. */
function driverError(err: unknown): { code?: unknown; message?: unknown } | undefined {
  if (err instanceof PaydError) return err.cause as { code?: unknown; message?: unknown } | undefined;
  return err as { code?: unknown; message?: unknown } | undefined;
}

export function pgErrorKind(err: unknown): PgErrorKind {
  const e = driverError(err);
  if (!e || typeof e !== 'object') return 'other';
  const code = typeof e.code === 'string' ? e.code : '';
  if (CONFLICT_SQLSTATES.has(code)) return 'conflict';
  if (BUSY_SQLSTATES.has(code)) return 'busy';
  // Class 08: connection exceptions.
  if (GONE_SQLSTATES.has(code) || code.startsWith('08') || NETWORK_CODES.test(code)) return 'gone';
  if (GONE_MESSAGES.test(String(e.message ?? ''))) return 'gone';
  return 'other';
}

/** Whether the database or the connection went away (see PgErrorKind). */
export const isDatabaseGone = (err: unknown): boolean => pgErrorKind(err) === 'gone';

/** A transaction PostgreSQL aborted to break a deadlock or a serialization conflict. */
export const isRetryableConflict = (err: unknown): boolean => pgErrorKind(err) === 'conflict';

/** Whether a PostgreSQL error means a unique index refused the row. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * A failure that retrying shortly can cure answers BUSY (503 with Retry-After), the same
 * answer as SQLite's lock waits; the driver's error stays as the cause for the log, never
 * for the client.
 */
export function mapPostgresError(err: unknown): unknown {
  if (err instanceof PaydError) return err;
  const kind = pgErrorKind(err);
  if (kind === 'other') return err;
  const detail = kind === 'gone' ? 'the database is unreachable; try again shortly' : 'the database is busy; try again shortly';
  return new PaydError('BUSY', detail, { retryAfter: 1, cause: err });
}

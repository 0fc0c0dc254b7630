import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PaydError } from '../../../src/domain/errors.ts';
import { isDatabaseGone, mapPostgresError, pgErrorKind } from '../../../src/db/pg-errors.ts';

// Errors as the pg driver raises them: a server error carries its SQLSTATE in `code`; the
// driver's own connection failures carry only a message.
const server = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

test('every way the database goes away is "gone": fast and crash shutdowns, starting up, class 08, resets, a client no longer queryable, a missed deadline', () => {
  const gone = [
    server('57P01', 'terminating connection due to administrator command'),
    server('57P02', 'terminating connection because of crash of another server process'),
    server('57P03', 'the database system is starting up'),
    server('08006', 'connection failure'),
    Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    new Error('Client has encountered a connection error and is not queryable'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new PaydError('BUSY', 'the database is unreachable; try again shortly', { cause: new Error('the database did not answer within 3000 ms') }),
  ];
  for (const err of gone) assert.equal(pgErrorKind(err), 'gone', String(err));
  assert.equal(pgErrorKind(server('40P01', 'deadlock detected')), 'conflict');
  assert.equal(pgErrorKind(server('55P03', 'canceling statement due to lock timeout')), 'busy');
  assert.equal(pgErrorKind(server('23505', 'duplicate key value violates unique constraint')), 'other');
  assert.equal(pgErrorKind(new TypeError('x is undefined')), 'other');
  assert.equal(isDatabaseGone(undefined), false);
});

test('a retryable failure reaches the client as BUSY with Retry-After and no driver detail; anything else is left as it is', () => {
  const mapped = mapPostgresError(new Error('Client has encountered a connection error and is not queryable'));
  assert.ok(mapped instanceof PaydError);
  assert.equal(mapped.code, 'BUSY');
  assert.equal(mapped.retryAfter, 1);
  assert.doesNotMatch(mapped.message, /queryable|Client/);
  const other = server('23505', 'duplicate key');
  assert.equal(mapPostgresError(other), other);
});

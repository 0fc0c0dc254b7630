// The PostgreSQL pool against a database that goes silent (a partition: no bytes, no reset,
// through a loopback TCP proxy that freezes, test/helpers/tcp-proxy.ts): a query gives up at its
// client-side deadline with BUSY instead of waiting for the network to heal, the connection
// that missed it is destroyed rather than handed to the next query, and the pool's sockets
// carry TCP keepalive.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { PaydError } from '../../src/domain/errors.ts';
import { openPostgres, queryDeadlineMs } from '../../src/db/postgres.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { waitFor } from '../helpers/wait.ts';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

/** The kernel's TCP timer of each established socket connected to 127.0.0.1:`port` (Linux's /proc/net/tcp `tr` column: 2 is keepalive). */
function timersOfSocketsTo(port: number): string[] {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[2] === remote && f[3] === '01')
    .map((f) => f[5]!.split(':')[0]!);
}

test('a query on a connection gone silent fails BUSY at its deadline, not at the heal; that connection is destroyed, the next query gets a fresh one; the pool\'s sockets keep alive', async (t) => {
  const direct = await freshDatabase(pg.url);
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg.port });
  t.after(() => proxy.close());
  const url = new URL(direct);
  url.port = String(proxy.port);
  const statementTimeoutMs = 500;
  const deadlineMs = queryDeadlineMs(statementTimeoutMs);
  // One connection: a reused one would answer from the same server process.
  const db = openPostgres({ url: url.toString(), pool: 1, statementTimeoutMs });
  t.after(() => db.destroy());
  const backend = async () => Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid);

  const firstBackend = await backend();
  assert.deepEqual(timersOfSocketsTo(proxy.port), ['02'], 'the pooled connection has its keepalive timer running');

  proxy.freeze();
  const started = performance.now();
  const err = await sql`select 1`.execute(db).then(
    () => assert.fail('a query on a silent connection answered'),
    (e: unknown) => e,
  );
  const tookMs = performance.now() - started;
  assert.ok(err instanceof PaydError, String(err));
  assert.equal(err.code, 'BUSY');
  assert.equal(err.retryAfter, 1);
  assert.equal(err.message, 'the database is unreachable; try again shortly');
  // Not before its deadline (the server's statement timeout could not reach it), and long before
  // the heal; generous for a loaded machine.
  assert.ok(tookMs >= deadlineMs - 50 && tookMs < deadlineMs + 5000, `gave up after ${Math.round(tookMs)} ms (deadline ${deadlineMs} ms)`);

  proxy.heal();
  assert.notEqual(await backend(), firstBackend, 'the connection that missed its deadline was handed out again');
  assert.equal(Number((await sql<{ n: number }>`select 42 as n`.execute(db)).rows[0]!.n), 42);
  // Its server process is gone too: nothing of that session lingers on the database.
  const check = await freshCheck(direct);
  t.after(() => check.end());
  await waitFor(async () => (await check.query('select 1 from pg_stat_activity where pid = $1', [firstBackend])).rowCount === 0, 10_000, 'the old session to end');
});

async function freshCheck(url: string) {
  const { default: driver } = await import('pg');
  const client = new driver.Client({ connectionString: url });
  await client.connect();
  return client;
}

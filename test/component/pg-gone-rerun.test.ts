// A PostgreSQL write transaction whose session the database ends (an administrator's command,
// as a fast shutdown does to every session): cut off before its COMMIT, nothing of it was
// committed, so it runs again on a fresh connection and the caller sees success; cut off during
// its COMMIT, it may have committed, so it is not run again and the caller gets BUSY (503 with
// Retry-After), never the driver's error.
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { PaydError } from '../../src/domain/errors.ts';
import { writeTx, type Db } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';

let cluster: Postgres;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

async function database(t: TestContext, setup: string): Promise<{ db: Db; admin: pg.Client }> {
  const url = await freshDatabase(cluster.url);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  t.after(() => admin.end());
  await admin.query(setup);
  const db = openPostgres({ url, pool: 2, statementTimeoutMs: 5000 });
  t.after(() => db.destroy());
  return { db, admin };
}

test('a transaction whose session is terminated before its COMMIT runs again and commits once; the caller sees success', async (t) => {
  const { db, admin } = await database(t, 'create table marks (run int primary key)');
  let runs = 0;
  const result = await writeTx(db, async (tx) => {
    const run = ++runs;
    await sql`insert into marks (run) values (${run})`.execute(tx);
    if (run === 1) {
      const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]!;
      await admin.query('select pg_terminate_backend($1)', [pid]);
    }
    await sql`select count(*) from marks`.execute(tx);
    return run;
  });
  assert.equal(result, 2);
  assert.equal(runs, 2);
  assert.deepEqual((await admin.query('select run from marks')).rows, [{ run: 2 }], 'only the second run committed');
});

test('a transaction whose session ends during its COMMIT is not run again: BUSY with Retry-After, no driver detail', async (t) => {
  // A deferred trigger runs inside COMMIT: there it ends its own session, as a shutdown arriving
  // at that moment would.
  const { db } = await database(
    t,
    `create table marks (run int);
     create function end_session() returns trigger language plpgsql as $$ begin perform pg_terminate_backend(pg_backend_pid()); perform pg_sleep(1); return null; end $$;
     create constraint trigger at_commit after insert on marks deferrable initially deferred for each row execute function end_session();`,
  );
  let runs = 0;
  const err = await writeTx(db, async (tx) => {
    await sql`insert into marks (run) values (${++runs})`.execute(tx);
  }).then(
    () => assert.fail('the COMMIT succeeded'),
    (e: unknown) => e,
  );
  assert.equal(runs, 1, 'run again after a COMMIT that may have committed');
  assert.ok(err instanceof PaydError, String(err));
  assert.equal(err.code, 'BUSY');
  assert.equal(err.retryAfter, 1);
  assert.doesNotMatch(err.message, /terminat|57P01|Connection/i);
});

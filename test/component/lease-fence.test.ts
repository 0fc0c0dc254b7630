// Fencing the leader's work on PostgreSQL: every write the workers make commits only while the
// lease take they run under is still the live one, whatever the path (a plain statement, a
// transaction), so a leader that lost its lease without noticing yet (stalled, cut off, its next
// renewal not due) moves nothing; and a leader whose renewals hang stops its workers before its
// lease can run out by its own clock.
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { sql } from 'kysely';
import { migrate, writeTx, type Db } from '../../src/db/open.ts';
import { runFenced, FencedOut } from '../../src/db/fence.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { silentLogger } from '../../src/log/index.ts';
import { createLeadership } from '../../src/workers/leader.ts';
import { createWorkerLease } from '../../src/workers/lease.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/wait.ts';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

async function database(t: TestContext): Promise<Db> {
  const db = openPostgres({ url: await freshDatabase(pg.url), pool: 4, statementTimeoutMs: 5000 });
  t.after(() => db.destroy());
  await migrate(db);
  return db;
}

const me = (holder: string) => ({ holder, host: 'node-' + holder, pid: 1 });
const rowsOf = async (db: Db, prefix: string) => Number((await sql<{ n: string }>`select count(*) as n from checkpoints where key like ${prefix + '%'}`.execute(db)).rows[0]!.n);

/** Another node taking the lease over, as its tryHold does once the old take expired (by the database's clock). */
async function takeOver(db: Db, holder: string): Promise<void> {
  await sql`update worker_lease set holder = ${holder}, host = ${'node-' + holder}, acquired_at = (extract(epoch from clock_timestamp()) * 1000)::bigint, expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + 60000 where name = 'workers'`.execute(db);
}

test("a leader that lost its lease to another node writes nothing more: plain writes and transactions alike are refused by the database, before its next renewal could notice", async (t) => {
  const db = await database(t);
  const refused: Error[] = [];
  let n = 0;
  // The leader's work: checkpoints every 20 ms, alternately a plain statement and a transaction.
  const work = async (signal: AbortSignal) => {
    while (!signal.aborted) {
      const key = `a-${++n}`;
      const write = n % 2 === 0
        ? db.insertInto('checkpoints').values({ key, value_json: '{}', updated_at: n }).execute()
        : writeTx(db, (tx) => tx.insertInto('checkpoints').values({ key, value_json: '{}', updated_at: n }).execute());
      await write.catch((err: Error) => refused.push(err));
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  // Renewals far apart: this leader cannot learn of the takeover from its lease for a minute.
  const leadership = createLeadership({
    lease: createWorkerLease({ db, clock: { now: () => Date.now() }, me: me('a'), ttlMs: 120_000 }),
    log: silentLogger(),
    ttlMs: 120_000,
    renewMs: 60_000,
    standbyPollMs: 60_000,
    lead: (signal) => work(signal),
  });
  const stop = new AbortController();
  const running = leadership.run(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await leadership.firstTried();
  assert.equal(leadership.role, 'leader');
  await waitFor(async () => (await rowsOf(db, 'a-')) >= 4, 10_000, 'the leader to write');
  assert.equal(refused.length, 0, `the live take writes freely: ${refused.join('; ')}`);
  assert.equal(await leadership.confirmedRole(), 'leader');

  await takeOver(db, 'b');
  const atTakeover = await rowsOf(db, 'a-');
  const attemptsAtTakeover = n;
  await waitFor(async () => n >= attemptsAtTakeover + 10, 10_000, 'ten more writes to be tried');
  assert.equal(await rowsOf(db, 'a-'), atTakeover, 'no write of the stale leader committed after the takeover');
  assert.ok(refused.length >= 9, `refused ${refused.length}`);
  assert.ok(refused.every((err) => err instanceof FencedOut), String(refused.find((err) => !(err instanceof FencedOut))));
  // It still believes it leads (no renewal yet), but /readyz asks the database.
  assert.equal(leadership.role, 'leader');
  assert.equal(await leadership.confirmedRole(), 'standby');
});

test('a write fenced by an older take of the lease is refused, by the same holder too; the live take commits; an expired take commits nothing', async (t) => {
  const db = await database(t);
  const lease = createWorkerLease({ db, clock: { now: () => Date.now() }, me: me('a'), ttlMs: 60_000 });
  const first = await lease.tryHold();
  assert.ok(first.held);
  await lease.release();
  const second = await lease.tryHold();
  assert.ok(second.held);
  assert.ok(second.fence.generation > first.fence.generation, 'each take has a newer generation');

  const put = (key: string) => db.insertInto('checkpoints').values({ key, value_json: '{}', updated_at: 1 }).execute();
  await assert.rejects(runFenced(first.fence, () => put('old-take')), FencedOut);
  await assert.rejects(runFenced(first.fence, () => writeTx(db, (tx) => put('old-take-tx').then(() => tx.updateTable('checkpoints').set({ updated_at: 2 }).execute()))), FencedOut);
  await runFenced(second.fence, () => put('live-take'));
  assert.deepEqual((await db.selectFrom('checkpoints').select('key').execute()).map((r) => r.key), ['live-take']);

  // The live take, but past its expiry by the database's clock (nobody has taken it yet).
  await sql`update worker_lease set expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint - 1 where name = 'workers'`.execute(db);
  await assert.rejects(runFenced(second.fence, () => put('expired-take')), FencedOut);
  assert.equal(await rowsOf(db, 'expired'), 0);
  // Writes outside the workers (the API's) are not fenced.
  await put('api-write');
  assert.equal(await rowsOf(db, 'api'), 1);
});

test('a leader whose renewals hang stops its workers before its lease can expire by its own clock', async (t) => {
  const db = await database(t);
  const real = createWorkerLease({ db, clock: { now: () => Date.now() }, me: me('a'), ttlMs: 1500 });
  let hang = false;
  // The second and later attempts never answer, as on a connection to a database that went silent.
  const lease = { ...real, tryHold: () => (hang ? new Promise<never>(() => {}) : real.tryHold()) };
  let startedAt = 0;
  let stoppedAt = 0;
  /** When the workers stopped by the wall clock, which the database's (on this machine) also reads. */
  let stoppedWallAt = 0;
  const leadership = createLeadership({
    lease,
    log: silentLogger(),
    ttlMs: 1500,
    renewMs: 500,
    standbyPollMs: 100,
    lead: async (signal) => {
      startedAt = performance.now();
      hang = true;
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      stoppedAt = performance.now();
      stoppedWallAt = Date.now();
    },
  });
  const stop = new AbortController();
  const running = leadership.run(stop.signal);
  t.after(() => stop.abort());
  await leadership.firstTried();
  assert.equal(leadership.role, 'leader');
  const expiresBy = await real.current();
  await waitFor(async () => stoppedAt > 0, 10_000, 'the workers to stop');
  assert.equal(leadership.role, 'standby');
  // Before the lease's expiry as the database set it at the take (no renewal got through since).
  assert.ok(stoppedWallAt < expiresBy!.expires_at, `stopped ${stoppedWallAt - expiresBy!.expires_at} ms after the lease expired (${Math.round(stoppedAt - startedAt)} ms after starting, the lease's ${expiresBy!.expires_at - expiresBy!.acquired_at} ms)`);
  stop.abort();
  await Promise.race([running, new Promise((r) => setTimeout(r, 100))]); // its last attempt hangs for ever; nothing waits on it
});

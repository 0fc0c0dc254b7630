// Wake-ups between processes on PostgreSQL: LISTEN/NOTIFY on a dedicated
// connection, opened only by a subscriber, reconnected when lost (subscribers then hear
// "look at everything again"), against a real server.
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { sql } from 'kysely';
import { openPostgres } from '../../src/db/postgres.ts';
import { openWakeups } from '../../src/db/wakeups.ts';
import { silentLogger } from '../../src/log/index.ts';
import { freshDatabase, startPostgres, type Postgres } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/wait.ts';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

async function node(t: TestContext, url: string) {
  const db = openPostgres({ url, pool: 2, statementTimeoutMs: 0 });
  const wakeups = await openWakeups({ db, postgresUrl: url, log: silentLogger() });
  t.after(async () => {
    await wakeups.close();
    await db.destroy();
  });
  return { db, wakeups };
}

/** Sessions that have run LISTEN (pg_stat_activity shows an idle session's last statement). */
const listeners = async (db: ReturnType<typeof openPostgres>) =>
  Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where application_name = 'payd-wake' and datname = current_database() and query like 'LISTEN%'`.execute(db)).rows[0]!.n);

test('PostgreSQL wake-ups: a publish on one node reaches every subscriber on another; only subscribers hold a listening connection; a lost listener reconnects and says so', async (t) => {
  const url = await freshDatabase(pg.url);
  const a = await node(t, url);
  const b = await node(t, url);
  // Publishing alone (what a CLI command does) opens no listening connection.
  a.wakeups.publish(['nobody-listens']);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await listeners(a.db), 0);

  const heard: Array<readonly string[] | null> = [];
  b.wakeups.subscribe((ids) => heard.push(ids));
  await waitFor(async () => (await listeners(a.db)) === 1, 5000, 'the listening connection');
  const ids = Array.from({ length: 150 }, (_, i) => `intent-${i}`);
  a.wakeups.publish(ids);
  a.wakeups.publish();
  // 150 ids arrive in two notifications (payloads stay under PostgreSQL's 8000-byte limit), and the bare one
  // (in any order: they are sent on whichever pooled connections are free).
  await waitFor(async () => heard.length >= 3, 5000, 'the notifications on the other node');
  assert.deepEqual(heard.map((h) => h?.length).sort(), [0, 100, 50].sort());
  assert.deepEqual([...heard.flat()].sort(), [...ids].sort());

  // The listening connection dies (a server restart, a network cut): it comes back, and says so.
  heard.length = 0;
  await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'payd-wake'`.execute(a.db);
  await waitFor(async () => heard.includes(null) && (await listeners(a.db)) === 1, 10_000, 'the reconnect signal');
  a.wakeups.publish(['after-reconnect']);
  await waitFor(async () => heard.some((h) => h?.[0] === 'after-reconnect'), 5000, 'a notification after the reconnect');

  // The publisher's own subscribers hear its publishes at once too (no round trip needed).
  const own: Array<readonly string[] | null> = [];
  a.wakeups.subscribe((x) => own.push(x));
  a.wakeups.publish(['local']);
  assert.deepEqual(own[0], ['local']);
});

// The console's lists must cost the same on a million intents as on ten: every query it runs
// is read through an index, never a full scan or a sort of the table. Checked on the planner
// (SQLite's EXPLAIN QUERY PLAN; PostgreSQL's EXPLAIN with sequential scans priced out), not by
// building a million rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { migrate } from '../../src/db/open.ts';
import type { Database } from '../../src/db/schema.ts';
import { createConsoleViews, encodeCursor } from '../../src/services/console-views.ts';
import { createHeldPayments } from '../../src/services/held-payments.ts';
import { testStore } from '../helpers/stores.ts';

const NOW = Date.UTC(2026, 10, 26);

/** Runs every list the console pages through, with and without filters and cursors. */
async function exercise(db: Kysely<Database>): Promise<void> {
  const v = createConsoleViews({ db: db as never });
  const cursor = encodeCursor(NOW, 'f'.repeat(36));
  await v.intents({ limit: 25 }, NOW);
  await v.intents({ limit: 25, cursor }, NOW);
  await v.intents({ limit: 25, status: 'settled', cursor }, NOW);
  await v.intents({ limit: 25, status: 'pending' }, NOW);
  await v.intents({ limit: 25, q: 'ORD-1' }, NOW);
  await v.intents({ limit: 25, from: NOW - 86_400_000, to: NOW }, NOW);
  await v.intents({ limit: 25, linkId: 'l'.repeat(36), cursor }, NOW);
  await v.payments({ status: 'unmatched', limit: 25, cursor });
  await v.rejections({ limit: 25, cursor });
  await v.settledSince(NOW - 7 * 86_400_000);
  await v.waiting(NOW);
  // The Held tab and an intent's held payments (held-payments service; listing needs no ledger).
  const held = createHeldPayments({ db: db as never, ledger: {} as never, view: () => ({}) as never });
  await held.listPayments({ status: 'held', limit: 25 });
  await held.listPayments({ status: 'held', limit: 25, cursor: Buffer.from(`${NOW}|${'f'.repeat(36)}`).toString('base64url') });
  await held.listPayments({ status: 'held', intentId: 'f'.repeat(36), limit: 25 });
}

const HOT_TABLES = ['intents', 'payments', 'rejections', 'events'];

/** As many queries as exercise() runs at the least: fewer means a list stopped querying, and its plan went unchecked. */
const ENOUGH_PLANS = 10;

/**
 * The table a plan line names: SQLite's plan says `SCAN p` for `"payments" as "p"`, so an alias
 * is read back to its table (a lost index behind an aliased query must not pass as "p").
 */
function tableOf(sql: string, name: string): string {
  for (const m of sql.matchAll(/"(\w+)" as "(\w+)"/g)) if (m[2] === name) return m[1]!;
  return name;
}

/**
 * Sorting is fine over what an index already narrowed to a few rows: the search by intent id
 * or order id (one intent, or one per merchant), and the failing endpoints (one per merchant).
 */
const sortAllowed = (sql: string) => /"id" = \S+ or "order_id" = /.test(sql) || /group by "m"\."id"/.test(sql);

/** The console's queries on a fresh SQLite store (less the indexes named) whose plans scan a hot table or sort it whole. */
async function sqliteBadPlans(dropIndexes: readonly string[] = []): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'payd-plans-'));
  const sqlite = new SQLite(join(dir, 'p.sqlite'));
  const seen: CompiledQuery[] = [];
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (e) => void (e.level === 'query' && seen.push(e.query)) });
  try {
    await migrate(db);
    for (const index of dropIndexes) sqlite.exec(`DROP INDEX ${index}`);
    seen.length = 0;
    await exercise(db);
    assert.ok(seen.length >= ENOUGH_PLANS, `only ${seen.length} queries seen`);
    const bad: string[] = [];
    for (const q of seen) {
      const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.parameters as unknown[])) as Array<{ detail: string }>;
      for (const { detail } of plan) {
        const scan = /^SCAN (\w+)(?! USING)/.exec(detail);
        if (scan && HOT_TABLES.includes(tableOf(q.sql, scan[1]!)) && !/USING (COVERING )?INDEX/.test(detail)) bad.push(`${q.sql}\n  → ${detail}`);
        if (/USE TEMP B-TREE FOR (ORDER BY|RIGHT PART)/.test(detail) && !sortAllowed(q.sql)) bad.push(`${q.sql}\n  → ${detail}`);
      }
    }
    return bad;
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('SQLite: every console list reads through an index, with no sort of a whole table', async () => {
  assert.deepEqual(await sqliteBadPlans(), []);
});

test('SQLite: a lost index behind an aliased query (the Held list reads "payments as p") is caught', async () => {
  const bad = await sqliteBadPlans(['payments_status', 'payments_status_observed_id']);
  assert.ok(bad.some((b) => b.includes('from "payments" as "p"') && /SCAN p\b/.test(b)), bad.join('\n\n'));
});

test('SQLite: a lost index behind the failing-endpoints query (it reads "events as e") is caught', async () => {
  const bad = await sqliteBadPlans(['events_due']);
  assert.ok(bad.some((b) => b.includes('from "events" as "e"') && /SCAN e\b/.test(b)), bad.join('\n\n'));
});

test('PostgreSQL: every console list reads through an index, with no sort of a whole table', async () => {
  const url = await testStore('postgres').database();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const seen: CompiledQuery[] = [];
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: (e) => void (e.level === 'query' && seen.push(e.query)) });
  try {
    await migrate(db);
    seen.length = 0;
    await exercise(db);
    assert.ok(seen.length >= ENOUGH_PLANS, `only ${seen.length} queries seen`);
    const client = await pool.connect();
    const bad: string[] = [];
    try {
      // An empty table is cheapest to scan: price scans out, so the plan shows whether an index can serve.
      await client.query('SET enable_seqscan = off');
      // And bitmap scans and sorts: what remains is what no index can avoid.
      await client.query('SET enable_bitmapscan = off');
      await client.query('SET enable_sort = off');
      for (const q of seen) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${q.sql}`, q.parameters as unknown[]);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        for (const t of HOT_TABLES) if (new RegExp(`Seq Scan on ${t}\\b`).test(plan)) bad.push(`${q.sql}\n${plan}`);
        if (/\bSort\b/.test(plan) && !sortAllowed(q.sql)) bad.push(`${q.sql}\n${plan}`);
      }
    } finally {
      client.release();
    }
    assert.deepEqual(bad, []);
  } finally {
    await db.destroy();
  }
});

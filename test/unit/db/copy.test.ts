import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { COPY_PLAN, inSqliteSnapshot, redactUrl, sqliteBatches, sqliteTables } from '../../../src/db/copy.ts';
import { migrate, openDatabase } from '../../../src/db/open.ts';

test('db copy plan: every table of a migrated SQLite database has a decision (an unknown one would stop the copy)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-copy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  t.after(() => db.destroy());
  await migrate(db);
  const tables = await sqliteTables(db);
  assert.deepEqual(tables.filter((name) => !(name in COPY_PLAN)), []);
  assert.deepEqual([...tables].sort(), Object.keys(COPY_PLAN).sort());
});

test('db copy reads a table in keyset batches: each at most the batch size, every row once, in rowid order, gaps and all', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-copy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  t.after(() => db.destroy());
  await sql`create table t (k text primary key, v blob)`.execute(db);
  for (let i = 0; i < 1050; i++) await sql`insert into t (k, v) values (${`k${i}`}, ${Buffer.from([i % 256])})`.execute(db);
  await sql`delete from t where rowid % 7 = 0`.execute(db);
  const sizes: number[] = [];
  const seen: string[] = [];
  for await (const rows of sqliteBatches(db, 't', ['k', 'v'], 100)) {
    sizes.push(rows.length);
    for (const r of rows) {
      assert.deepEqual(Object.keys(r), ['k', 'v']);
      seen.push(String(r.k));
    }
  }
  const expected = Array.from({ length: 1050 }, (_, i) => i).filter((i) => (i + 1) % 7 !== 0).map((i) => `k${i}`);
  assert.deepEqual(seen, expected);
  assert.ok(sizes.every((n) => n <= 100), sizes.join());
  assert.equal(sizes.length, Math.ceil(expected.length / 100));
});

test('db copy reads one snapshot: rows written meanwhile by another connection are not seen', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-copy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'payd.sqlite');
  const db = openDatabase(file);
  t.after(() => db.destroy());
  await sql`create table t (k integer primary key)`.execute(db);
  await sql`insert into t values (1), (2)`.execute(db);
  const other = openDatabase(file);
  t.after(() => other.destroy());
  const counts = await inSqliteSnapshot(db, async (snap) => {
    const first = Number((await sql<{ n: number }>`select count(*) as n from t`.execute(snap)).rows[0]!.n);
    await sql`insert into t values (3)`.execute(other);
    const second = Number((await sql<{ n: number }>`select count(*) as n from t`.execute(snap)).rows[0]!.n);
    return [first, second];
  });
  assert.deepEqual(counts, [2, 2]);
});

test('db copy shows target URLs without their password', () => {
  assert.equal(redactUrl('postgres://payd:s3cret@db.internal:5432/payd'), 'postgres://payd:***@db.internal:5432/payd');
  assert.equal(redactUrl('postgres://db.internal/payd?password=s3cret&sslmode=require'), 'postgres://db.internal/payd?password=***&sslmode=require');
  assert.equal(redactUrl('not a url s3cret'), '(an unparseable URL)');
});

// Both stores' migrations must reach the same schema: every table, every column, with a
// compatible type and the same nullability. A column added to one store's migrations only
// (or NOT NULL on one side) fails here instead of on the first write in production.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migrate, openDatabase } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { testStore } from '../helpers/stores.ts';

const pgStore = testStore('postgres');

/** A column as both stores can be compared: a type family and whether it takes NULL. */
interface Column {
  type: 'integer' | 'text' | 'bytes' | 'real';
  nullable: boolean;
}

/** SQLite's declared type → family, by its affinity rules (§3.1 of "Datatypes In SQLite"). */
function sqliteFamily(declared: string): Column['type'] {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(t)) return 'text';
  if (t === '' || t.includes('BLOB')) return 'bytes';
  if (/REAL|FLOA|DOUB/.test(t)) return 'real';
  throw new Error(`SQLite column type ${declared} has numeric affinity: say what it is`);
}

function pgFamily(dataType: string): Column['type'] {
  if (['bigint', 'integer', 'smallint'].includes(dataType)) return 'integer';
  if (['text', 'character varying', 'character'].includes(dataType)) return 'text';
  // Amounts: NUMERIC here, fixed-width decimal text on SQLite (src/db/amounts.ts), exact on both.
  if (dataType === 'numeric') return 'text';
  if (dataType === 'bytea') return 'bytes';
  if (['double precision', 'real'].includes(dataType)) return 'real';
  throw new Error(`PostgreSQL column type ${dataType} has no SQLite counterpart here: add it`);
}

// Kysely's own bookkeeping tables are not payd's schema.
const ours = (table: string) => !table.startsWith('kysely_') && !table.startsWith('sqlite_');

async function sqliteSchema(): Promise<Map<string, Map<string, Column>>> {
  const dir = mkdtempSync(join(tmpdir(), 'payd-schema-'));
  const db = openDatabase(join(dir, 'payd.sqlite'));
  try {
    await migrate(db);
    const tables = (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(db)).rows.map((r) => r.name).filter(ours);
    const schema = new Map<string, Map<string, Column>>();
    for (const table of tables) {
      const cols = (await sql<{ name: string; type: string; notnull: number; pk: number }>`SELECT name, type, "notnull", pk FROM pragma_table_info(${table})`.execute(db)).rows;
      // A primary key column is NOT NULL on PostgreSQL; on SQLite an INTEGER PRIMARY KEY is too.
      schema.set(table, new Map(cols.map((c) => [c.name, { type: sqliteFamily(c.type), nullable: c.notnull === 0 && c.pk === 0 }])));
    }
    return schema;
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresSchema(): Promise<Map<string, Map<string, Column>>> {
  const db = openPostgres({ url: await pgStore.database(), pool: 2, statementTimeoutMs: 0 });
  try {
    await migrate(db);
    const rows = (
      await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>`
        SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`.execute(db)
    ).rows.filter((r) => ours(r.table_name));
    const schema = new Map<string, Map<string, Column>>();
    for (const r of rows) {
      if (!schema.has(r.table_name)) schema.set(r.table_name, new Map());
      schema.get(r.table_name)!.set(r.column_name, { type: pgFamily(r.data_type), nullable: r.is_nullable === 'YES' });
    }
    return schema;
  } finally {
    await db.destroy();
  }
}

/** The schema as sorted lines `table.column type null|not null`, for a readable diff. */
const lines = (schema: Map<string, Map<string, Column>>) =>
  [...schema].flatMap(([table, cols]) => [...cols].map(([name, c]) => `${table}.${name} ${c.type} ${c.nullable ? 'null' : 'not null'}`)).sort();

test('SQLite and PostgreSQL migrations reach the same tables, columns, column types and nullability', async () => {
  const [lite, pg] = await Promise.all([sqliteSchema(), postgresSchema()]);
  assert.ok(lite.has('intents') && lite.has('events') && lite.get('intents')!.size > 10, 'the SQLite schema was read');
  assert.ok(lite.size >= 15 && lines(lite).length >= 120, `only ${lite.size} tables, ${lines(lite).length} columns read`);
  assert.deepEqual(lines(lite), lines(pg));
});

test('the comparison sees a drift: one column missing, one nullable on one side only', () => {
  const a = new Map([['t', new Map<string, Column>([['x', { type: 'integer', nullable: false }], ['y', { type: 'text', nullable: true }]])]]);
  const b = new Map([['t', new Map<string, Column>([['x', { type: 'integer', nullable: true }]])]]);
  assert.notDeepEqual(lines(a), lines(b));
  assert.deepEqual(lines(a), ['t.x integer not null', 't.y text null']);
  assert.equal(sqliteFamily('BIGINT'), pgFamily('bigint'));
  assert.equal(sqliteFamily('BLOB'), pgFamily('bytea'));
});

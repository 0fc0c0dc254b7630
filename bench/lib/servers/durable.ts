// The durable one-INSERT server: what an operator would write by hand on the
// same libraries. h3 served like payd (serveHttp: node:http + toNodeHandler), payd's valibot body
// schema, better-sqlite3 with payd's pragmas (openSqlite: WAL, synchronous=FULL) and statements
// prepared once: POST runs one INSERT in its own implicit transaction (one fsync per request),
// GET one SELECT by primary key. No auth, no log, no unique-amount search, no group commit.
// argv: [seedRows] [dbFile]; a dbFile given is kept (and grows) across processes.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H3, type H3Event } from 'h3';
import { openSqlite } from '../../../src/db/open.ts';
import { parseCreateBody } from '../../../src/http/routes/intents.ts';
import { serveHttp } from '../../../src/http/server.ts';
import { serveChild } from '../child.ts';

export interface DurableServerData {
  url: string;
  itemIds: string[];
}

const seed = Number(process.argv[2] ?? 300);
const givenFile = process.argv[3];
const json = (event: H3Event, body: unknown, status = 200) => {
  event.res.status = status;
  return body;
};

serveChild<DurableServerData>(async () => {
  const dir = givenFile ? null : mkdtempSync(join(tmpdir(), 'payd-bench-durable-'));
  const sqlite = openSqlite(givenFile ?? join(dir!, 'durable.sqlite'));
  sqlite.exec(`CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, currency TEXT NOT NULL, amount REAL NOT NULL, created_at INTEGER NOT NULL)`);
  const insert = sqlite.prepare('INSERT INTO items (id, order_id, currency, amount, created_at) VALUES (@id, @order_id, @currency, @amount, @created_at)');
  const byId = sqlite.prepare('SELECT id, order_id, currency, amount, created_at FROM items WHERE id = ?');

  const app = new H3({ silent: true });
  app.post('/items', async (event) => {
    const input = parseCreateBody(JSON.parse(await event.req.text()));
    const row = { id: randomUUID(), order_id: input.order_id, currency: input.currency, amount: input.amount ?? 0, created_at: Date.now() };
    insert.run(row);
    return json(event, row);
  });
  app.get('/items/:id', (event) => {
    const row = byId.get(event.context.params?.id ?? '');
    return row ? json(event, row) : json(event, { code: 'NOT_FOUND' }, 404);
  });

  const itemIds: string[] = [];
  // One transaction: one fsync for the seed, not one per row.
  sqlite.transaction(() => {
    for (let i = 0; i < seed; i++) {
      const id = randomUUID();
      insert.run({ id, order_id: `seed-${i}`, currency: 'UPI', amount: 900_000 + i, created_at: Date.now() });
      itemIds.push(id);
    }
  })();
  const server = await serveHttp(app, '127.0.0.1', 0);
  return {
    data: { url: server.url, itemIds },
    close: async () => {
      await server.close();
      sqlite.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
});

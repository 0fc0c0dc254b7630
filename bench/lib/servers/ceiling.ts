// The bare SELECT server payd's fetch is measured against (the bench's fetch goal):
// a bare h3 app, served exactly like payd (serveHttp: node:http + toNodeHandler), on a database
// opened exactly like payd's (openDatabase: WAL, synchronous FULL, busy_timeout), its queries built
// by Kysely as an idiomatic app writes them. POST parses payd's own create body schema and INSERTs
// one row; GET selects one row by primary key. Nothing else: no auth, no log, no transaction.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H3, type H3Event } from 'h3';
import type { Kysely } from 'kysely';
import { openDatabase } from '../../../src/db/open.ts';
import { parseCreateBody } from '../../../src/http/routes/intents.ts';
import { serveHttp } from '../../../src/http/server.ts';
import { serveChild } from '../child.ts';

interface CeilingDb {
  items: { id: string; order_id: string; currency: string; amount: number; created_at: number };
}

export interface CeilingServerData {
  url: string;
  itemIds: string[];
}

const seed = Number(process.argv[2] ?? 300);
// Idiomatic h3: return the value and let h3 serialize it (its fast path, as payd's API uses).
const json = (event: H3Event, body: unknown, status = 200) => {
  event.res.status = status;
  return body;
};

serveChild<CeilingServerData>(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-bench-ceiling-'));
  const db = openDatabase(join(dir, 'ceiling.sqlite')) as unknown as Kysely<CeilingDb>;
  await db.schema
    .createTable('items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'real', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  const app = new H3({ silent: true });
  app.post('/items', async (event) => {
    const input = parseCreateBody(JSON.parse(await event.req.text()));
    const row = { id: randomUUID(), order_id: input.order_id, currency: input.currency, amount: input.amount ?? 0, created_at: Date.now() };
    await db.insertInto('items').values(row).execute();
    return json(event, row);
  });
  app.get('/items/:id', async (event) => {
    const row = await db.selectFrom('items').selectAll().where('id', '=', event.context.params?.id ?? '').executeTakeFirst();
    return row ? json(event, row) : json(event, { code: 'NOT_FOUND' }, 404);
  });

  const itemIds: string[] = [];
  for (let i = 0; i < seed; i++) {
    const id = randomUUID();
    await db.insertInto('items').values({ id, order_id: `seed-${i}`, currency: 'UPI', amount: 900_000 + i, created_at: Date.now() }).execute();
    itemIds.push(id);
  }
  const server = await serveHttp(app, '127.0.0.1', 0);
  return {
    data: { url: server.url, itemIds },
    close: async () => {
      await server.close();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

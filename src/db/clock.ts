import { sql } from 'kysely';
import { isPostgres, type Db } from './open.ts';

/** The database server's clock in epoch ms (PostgreSQL): one clock for every node. */
export const databaseNowMs = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** The database's clock (PostgreSQL), or undefined where the caller's injected clock rules (SQLite: one machine). */
export async function databaseNow(db: Db): Promise<number | undefined> {
  if (!isPostgres(db)) return undefined;
  const row = await db.selectNoFrom(databaseNowMs.as('now')).executeTakeFirstOrThrow();
  return Number(row.now);
}

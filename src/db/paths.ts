import { basename, dirname, extname, join } from 'node:path';
import type { Config } from '../config/read.ts';
import type { StoreTarget } from './store.ts';

/** The sandbox database lives beside the live one: payd.sqlite → payd-sandbox.sqlite. */
export function databaseFile(config: Config, sandbox: boolean): string {
  const file = config.database.file;
  if (!sandbox) return file;
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}-sandbox${ext || '.sqlite'}`);
}

/**
 * The live store is PostgreSQL when `database.url` is set, else the SQLite file; the sandbox
 * is always a SQLite file (the sandbox's store: one machine, no sharing).
 */
export function storeTarget(config: Config, sandbox: boolean): StoreTarget {
  const { url, pool, statementTimeoutMs } = config.database;
  if (url && !sandbox) return { kind: 'postgres', url: url.reveal(), pool, statementTimeoutMs };
  return { kind: 'sqlite', file: databaseFile(config, sandbox) };
}

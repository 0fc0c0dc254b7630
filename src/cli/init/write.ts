import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from '../../config/read.ts';

/** Writes the config (owner and group may read it: it holds no secret, only references). */
export function writeConfigFile(file: string, json: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(json, null, 2) + '\n', { mode: 0o640 });
}

/** Creates the config's database with every migration applied; returns its file. */
export async function createDatabase(config: Config): Promise<string> {
  const [{ databaseFile }, { migrate, openDatabase }] = await Promise.all([import('../../db/paths.ts'), import('../../db/open.ts')]);
  const dbFile = databaseFile(config, false);
  const db = openDatabase(dbFile);
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
  return dbFile;
}

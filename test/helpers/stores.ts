// Runs a block of tests once per store: SQLite (a file in the test's dir) and PostgreSQL (one
// throw-away cluster per test file, started at first use; each call gets its own database).
import { after, describe } from 'node:test';
import { freshDatabase, startPostgres, type Postgres } from './postgres.ts';

export type StoreKind = 'sqlite' | 'postgres';

export interface TestStore {
  kind: StoreKind;
  /**
   * Config keys that put a payd on this store, for startPayd's `config`: SQLite → nothing (the
   * harness's file); PostgreSQL → a fresh database, or `shared` (one database for several nodes).
   */
  config(shared?: { url: string }): Promise<Record<string, any>>;
  /** A fresh PostgreSQL database URL (PostgreSQL only). */
  database(): Promise<string>;
}

/** One master key for every PostgreSQL node of a test (required there; see config/read.ts). */
export const TEST_MASTER_KEY = 'test master key shared by every node';

let cluster: Promise<Postgres> | null = null;
let stopRegistered = false;
/** The file's cluster, started on first use (stopped after the file's or the suite's tests: see testStore). */
export function sharedPostgres(): Promise<Postgres> {
  cluster ??= startPostgres();
  return cluster;
}

/**
 * Call at file level or in a describe block, never inside a running test: the stop hook is
 * registered where it is called (inside a test it would stop the cluster after that test).
 */
export function testStore(kind: StoreKind): TestStore {
  if (kind === 'postgres' && !stopRegistered) {
    stopRegistered = true;
    after(async () => {
      const started = cluster;
      cluster = null;
      stopRegistered = false;
      if (started) await (await started).stop();
    });
  }
  return {
    kind,
    async database() {
      if (kind !== 'postgres') throw new Error('database() is for PostgreSQL');
      return freshDatabase((await sharedPostgres()).url);
    },
    async config(shared) {
      if (kind === 'sqlite') return {};
      const url = shared?.url ?? (await this.database());
      return { database: { url }, server: { masterKey: TEST_MASTER_KEY } };
    },
  };
}

/** Declares `body`'s tests once per store, in a describe block named after the store. */
export function forEachStore(body: (store: TestStore) => void): void {
  for (const kind of ['sqlite', 'postgres'] as const) describe(kind, () => body(testStore(kind)));
}

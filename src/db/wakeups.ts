import type { Kysely } from 'kysely';
import type { Logger, Wakeups } from '../domain/ports.ts';
import { subscriberSet } from './subscriber-set.ts';

/**
 * SQLite: every writer that matters (sources, dispatcher, API) is in this one process, and
 * another process (the CLI) is covered by the readers' polls, so wake-ups stay in memory.
 */
export function localWakeups(): Wakeups {
  const subs = subscriberSet();
  return {
    publish: (ids = []) => subs.emit(ids),
    subscribe: (fn) => subs.add(fn),
    close: async () => {},
  };
}

/** The store's wake-ups: LISTEN/NOTIFY on PostgreSQL (`pg` loaded only then), in memory on SQLite. */
export async function openWakeups(options: { db: Kysely<any>; postgresUrl: string | null; log: Logger }): Promise<Wakeups> {
  if (!options.postgresUrl) return localWakeups();
  const url = options.postgresUrl;
  const [{ postgresWakeups }, { default: pg }] = await Promise.all([import('./pg-wakeups.ts'), import('pg')]);
  return postgresWakeups({
    db: options.db,
    // Its own connection outside the pool: LISTEN belongs to a session, and a pooled one would be handed on.
    newClient: async () => new pg.Client({ connectionString: url, application_name: 'payd-wake', connectionTimeoutMillis: 5000, keepAlive: true }),
    log: options.log,
  });
}

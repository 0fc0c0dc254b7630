import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Logger, Wakeups } from '../domain/ports.ts';
import { subscriberSet } from './subscriber-set.ts';

/** The one channel payd uses; the payload lists changed intent ids, comma-separated (may be empty). */
export const WAKE_CHANNEL = 'payd_wake';
/** NOTIFY payloads must stay under 8000 bytes: 100 UUIDs (36 + 1 bytes each) fit with room to spare. */
const IDS_PER_NOTIFY = 100;

export interface PgWakeupsDeps {
  /** Publishes go through the pool (any connection will do; NOTIFY reaches every listener). */
  db: Kysely<any>;
  /** A new, unconnected client to the same database: the dedicated listening connection. */
  newClient: () => Promise<pg.Client>;
  log: Logger;
  /** First wait before reconnecting a lost listener, ms (doubles up to 10 s). */
  retryMs?: number;
  /** The listener must answer a query this often (ms), else it is taken as lost and replaced. */
  pingMs?: number;
}

/**
 * PostgreSQL: LISTEN/NOTIFY, so a change committed on any node (the leader's settlement, a
 * CLI on another machine, a cancel on a non-leader) reaches every node's dispatcher and
 * checkout sockets at once. The listening connection is opened at the first subscription
 * (a CLI command that only publishes never opens one) and reopened when lost; after a
 * reconnect subscribers get `null` (something may have been missed), and their own polls
 * remain the safety net meanwhile.
 */
export function postgresWakeups(deps: PgWakeupsDeps): Wakeups {
  const subs = subscriberSet();
  const inFlight = new Set<Promise<void>>();
  const stop = new AbortController();
  const retryMs = deps.retryMs ?? 250;
  const pingMs = deps.pingMs ?? 10_000;
  let listening: Promise<void> | null = null;

  async function notify(payload: string): Promise<void> {
    await sql`select pg_notify(${WAKE_CHANNEL}, ${payload})`.execute(deps.db);
  }

  function publish(ids: readonly string[] = []): void {
    // This node's own subscribers at once (its listener also hears the NOTIFY: a second look is harmless).
    subs.emit(ids);
    const chunks: string[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) chunks.push(ids.slice(i, i + IDS_PER_NOTIFY).join(','));
    if (chunks.length === 0) chunks.push('');
    for (const payload of chunks) {
      const p = notify(payload)
        .catch((err) => deps.log.warn('could not publish a wake-up; other nodes see the change at their next poll', { error: String(err) }))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }

  /** One listening connection until it fails or we stop; resolves then. */
  async function listenOnce(first: boolean): Promise<boolean> {
    const client = await deps.newClient();
    let lost: (why: string) => void = () => {};
    const gone = new Promise<string>((r) => (lost = r));
    client.on('error', (err) => lost(String(err)));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (msg) => {
      if (msg.channel !== WAKE_CHANNEL) return;
      subs.emit(msg.payload ? msg.payload.split(',') : []);
    });
    const onStop = () => lost('stopping');
    stop.signal.addEventListener('abort', onStop, { once: true });
    let ping: NodeJS.Timeout | undefined;
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE_CHANNEL}`);
      if (!first) {
        deps.log.info('wake-up listener reconnected');
        subs.emit(null);
      }
      ping = setInterval(() => {
        const timer = setTimeout(() => lost('listener did not answer a ping'), pingMs);
        client.query('select 1').then(
          () => clearTimeout(timer),
          (err) => {
            clearTimeout(timer);
            lost(String(err));
          },
        );
      }, pingMs);
      const why = await gone;
      if (!stop.signal.aborted) deps.log.warn('wake-up listener lost; reconnecting (polls cover the gap)', { error: why });
      return true;
    } catch (err) {
      if (!stop.signal.aborted) deps.log.warn('wake-up listener could not connect; retrying (polls cover the gap)', { error: String(err) });
      return false;
    } finally {
      clearInterval(ping);
      stop.signal.removeEventListener('abort', onStop);
      // end() waits for the server's goodbye; a dead socket never sends one.
      await Promise.race([client.end().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
    }
  }

  async function listenLoop(): Promise<void> {
    let first = true;
    let wait = retryMs;
    while (!stop.signal.aborted) {
      const wasUp = await listenOnce(first);
      if (wasUp) {
        first = false;
        wait = retryMs;
      }
      if (stop.signal.aborted) break;
      await new Promise<void>((r) => {
        const done = () => {
          clearTimeout(t);
          stop.signal.removeEventListener('abort', done);
          r();
        };
        const t = setTimeout(done, wait);
        stop.signal.addEventListener('abort', done, { once: true });
      });
      wait = Math.min(wait * 2, 10_000);
    }
  }

  return {
    publish,
    subscribe(fn) {
      const off = subs.add(fn);
      listening ??= listenLoop();
      return off;
    },
    async close() {
      await Promise.allSettled([...inFlight]);
      stop.abort();
      await listening;
    },
  };
}

import type { Db } from '../db/open.ts';
import type { Clock, Logger, Wakeups } from '../domain/ports.ts';
import type { PaymentSource } from '../methods/source.ts';
import type { Dispatcher } from '../webhooks/dispatcher.ts';
import { createLeadership } from '../workers/leader.ts';
import { createWorkerLease } from '../workers/lease.ts';
import { describeError } from '../domain/errors.ts';
import { SourceHealth } from '../workers/source-health.ts';
import type { createLeaderWork } from './lead.ts';
import type { WorkerSet } from './readiness.ts';
import type { Stop } from './shutdown.ts';

/** The worker lease: renewed every 3 s, so a holder that cannot renew is replaced ≤ 12 s after its last renewal. */
export const LEASE_DEFAULTS = { ttlMs: 12_000, renewMs: 3_000, standbyPollMs: 1_000 };

export interface WorkerParts {
  db: Db;
  clock: Clock;
  log: Logger;
  wakeups: Wakeups;
  dispatcher: Dispatcher;
  /** This process as a lease holder. */
  me: { holder: string; host: string; pid: number };
  timing: typeof LEASE_DEFAULTS;
  lead: ReturnType<typeof createLeaderWork>;
  /** A source's lag limit, ms (none: not held to one). */
  lagLimit: (method: string | undefined) => number | undefined;
}

/**
 * The workers run only while this process holds the database's worker lease: the leader runs
 * the sources, the dispatcher and expiry; a standby waits to take over. Resolves after the
 * first lease attempt.
 */
export async function startWorkers(deps: WorkerParts, running: PaymentSource[], stops: Stop[], signal: AbortSignal, abort: () => void, publish: (w: NonNullable<WorkerSet>) => void): Promise<void> {
  const { clock, log, me } = deps;
  // Events written by any process on this database wake the dispatcher (it runs only while leader).
  const unsubscribe = deps.wakeups.subscribe(() => deps.dispatcher.wake());
  stops.push({ name: 'wake-ups', stop: async () => unsubscribe() });
  const health = running.map((s) => new SourceHealth(s.method ?? s.name, s.name, clock, deps.lagLimit(s.method)));
  const leaseLog = log.child({ component: 'lease' });
  const leadership = createLeadership({
    lease: createWorkerLease({ db: deps.db, clock, me, ttlMs: deps.timing.ttlMs }),
    log: leaseLog,
    ...deps.timing,
    lead: (leading, previous) => deps.lead(leading, health, running, previous),
  });
  // Published before the first attempt: /readyz and /metrics read the role from now on.
  publish({ role: () => leadership.role, confirmedRole: () => leadership.confirmedRole(), health });
  const done = leadership.run(signal).catch((err) => leaseLog.error('worker lease loop failed', { error: describeError(err) }));
  stops.push({
    name: 'workers',
    stop: async () => {
      abort();
      await done;
    },
  });
  await leadership.firstTried();
  log.info(leadership.role === 'leader' ? 'workers running (this process holds the worker lease)' : 'workers standing by (another process holds the worker lease)', { holder: me.holder });
}

import type { WorkerLeaseTable } from '../db/schema.ts';
import type { Clock, Logger } from '../domain/ports.ts';
import type { WorkerLease } from './lease.ts';
import { describeError } from '../domain/errors.ts';
import { sleep } from '../runtime/sleep.ts';

export type WorkerRole = 'leader' | 'standby';

export interface LeadershipOptions {
  lease: WorkerLease;
  clock: Clock;
  log: Logger;
  ttlMs: number;
  /** Leader: renew this often (well inside ttlMs, so a slow moment does not lose the lease). */
  renewMs: number;
  /** Standby: try to take the lease this often. */
  standbyPollMs: number;
  /** Runs the workers until `signal` aborts (lease lost or shutdown); resolves once they stopped. */
  lead(signal: AbortSignal, previous: (WorkerLeaseTable & { dead: boolean }) | undefined): Promise<void>;
  onRole?(role: WorkerRole): void;
}

/**
 * Holds the worker lease or stands by for it until `signal` aborts. Workers run only
 * while the lease is ours: a renewal that finds another holder stops them at once, and
 * renewals that keep failing stop them before the lease could expire under them.
 */
export function createLeadership(o: LeadershipOptions) {
  let role: WorkerRole = 'standby';

  const setRole = (r: WorkerRole) => {
    role = r;
    o.onRole?.(r);
  };

  let firstTry: () => void = () => {};
  const firstTried = new Promise<void>((r) => (firstTry = r));

  async function run(signal: AbortSignal): Promise<void> {
    let term: AbortController | null = null;
    let working: Promise<void> | null = null;
    let renewedAt = 0;
    const stepDown = async (why: string, fields: Record<string, unknown> = {}) => {
      o.log.warn(`worker lease lost; stopping workers (${why})`, fields);
      term?.abort();
      await working;
      term = null;
      working = null;
      setRole('standby');
    };
    while (!signal.aborted) {
      let result: Awaited<ReturnType<WorkerLease['tryHold']>> | null = null;
      try {
        result = await o.lease.tryHold();
      } catch (err) {
        o.log.warn('worker lease check failed', { error: describeError(err) });
      }
      if (signal.aborted) break;
      if (result?.held) {
        renewedAt = o.clock.now();
        if (role === 'standby') {
          const prev = result.acquired ? result.previous : undefined;
          o.log.info('worker lease acquired; starting workers', prev ? { previous_holder: prev.holder, previous_host: prev.host, previous_pid: prev.pid, previous_dead: prev.dead } : {});
          setRole('leader');
          term = new AbortController();
          const t = term;
          working = o.lead(t.signal, prev).catch((err) => o.log.error('workers failed', { error: describeError(err) }));
        }
      } else if (role === 'leader') {
        if (result) await stepDown('another process holds it', result.holder ? { holder: result.holder.holder, host: result.holder.host, pid: result.holder.pid } : {});
        else if (o.clock.now() - renewedAt >= o.ttlMs - o.renewMs) await stepDown('could not renew it in time');
      } else if (result && result.holder && role === 'standby') {
        o.log.debug('standing by; worker lease held elsewhere', { holder: result.holder.holder, host: result.holder.host, pid: result.holder.pid });
      }
      firstTry();
      await sleep(role === 'leader' ? o.renewMs : o.standbyPollMs, signal);
    }
    firstTry();
    if (term) {
      (term as AbortController).abort();
      await working;
      try {
        await o.lease.release();
      } catch (err) {
        o.log.warn('could not release the worker lease; it expires by itself', { error: describeError(err) });
      }
      setRole('standby');
    }
  }

  return {
    run,
    /** Resolves after the first attempt to take the lease (a lone process is leader by then). */
    firstTried: () => firstTried,
    get role(): WorkerRole {
      return role;
    },
  };
}

import type { WorkerLeaseTable } from '../db/schema.ts';
import type { Logger } from '../domain/ports.ts';
import type { WorkerLease } from './lease.ts';
import { describeError } from '../domain/errors.ts';
import { sleep } from '../runtime/sleep.ts';
import { runFenced, type LeaseFence } from '../db/fence.ts';

export type WorkerRole = 'leader' | 'standby';

export interface LeadershipOptions {
  lease: WorkerLease;
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
export function createLeadership(options: LeadershipOptions) {
  let role: WorkerRole = 'standby';
  /** The lease take the running workers are fenced by (null while standing by). */
  let fence: LeaseFence | null = null;

  const setRole = (r: WorkerRole) => {
    role = r;
    options.onRole?.(r);
  };

  let firstTry: () => void = () => {};
  const firstTried = new Promise<void>((r) => (firstTry = r));

  async function run(signal: AbortSignal): Promise<void> {
    let term: AbortController | null = null;
    let working: Promise<void> | null = null;
    let stopping: Promise<void> = Promise.resolve();
    let watchdog: NodeJS.Timeout | undefined;
    const stepDown = (why: string, fields: Record<string, unknown> = {}): Promise<void> => {
      clearTimeout(watchdog);
      if (!term) return stopping;
      options.log.warn(`worker lease lost; stopping workers (${why})`, fields);
      term.abort();
      stopping = working ?? Promise.resolve();
      term = null;
      working = null;
      fence = null;
      setRole('standby');
      return stopping;
    };
    while (!signal.aborted) {
      // The database timed the lease from some moment after this one: by this node's own clock
      // it runs at least ttlMs from here. The workers stop renewMs before that, whatever the
      // next attempts do (one may hang on a cut-off database until its deadline), so a node
      // never works on past its lease; their writes are fenced besides (db/fence.ts).
      const attemptAt = performance.now();
      let result: Awaited<ReturnType<WorkerLease['tryHold']>> | null = null;
      try {
        result = await options.lease.tryHold();
      } catch (err) {
        options.log.warn('worker lease check failed', { error: describeError(err) });
      }
      if (signal.aborted) break;
      if (result?.held) {
        if (role === 'leader' && fence && fence.generation !== result.fence.generation) await stepDown('it was taken again meanwhile');
        clearTimeout(watchdog);
        watchdog = setTimeout(() => void stepDown('could not renew it in time'), Math.max(0, attemptAt + options.ttlMs - options.renewMs - performance.now()));
        if (role === 'standby') {
          await stopping; // the previous take's workers have finished
          const prev = result.acquired ? result.previous : undefined;
          options.log.info('worker lease acquired; starting workers', prev ? { previous_holder: prev.holder, previous_host: prev.host, previous_pid: prev.pid, previous_dead: prev.dead } : {});
          setRole('leader');
          term = new AbortController();
          fence = result.fence;
          const t = term;
          // Only where the store checks the fence: on Node 20 an AsyncLocalStorage in use hooks every promise of the process, API requests included.
          const work = () => options.lead(t.signal, prev);
          working = (options.lease.fencesWrites ? runFenced(result.fence, work) : work()).catch((err) => options.log.error('workers failed', { error: describeError(err) }));
        }
      } else if (role === 'leader' && result) {
        await stepDown('another process holds it', result.holder ? { holder: result.holder.holder, host: result.holder.host, pid: result.holder.pid } : {});
      } else if (result && result.holder && role === 'standby') {
        options.log.debug('standing by; worker lease held elsewhere', { holder: result.holder.holder, host: result.holder.host, pid: result.holder.pid });
      }
      firstTry();
      await sleep(role === 'leader' ? options.renewMs : options.standbyPollMs, signal);
    }
    clearTimeout(watchdog);
    firstTry();
    if (term) {
      (term as AbortController).abort();
      await working;
      try {
        await options.lease.release();
      } catch (err) {
        options.log.warn('could not release the worker lease; it expires by itself', { error: describeError(err) });
      }
      setRole('standby');
    }
    await stopping;
  }

  /**
   * The role as the database has it: leader only while this node runs its workers and the
   * lease row is still that take, unexpired by the database's clock (a node cut off from the
   * database, or frozen past its lease, must not report what it last believed).
   */
  async function confirmedRole(): Promise<WorkerRole> {
    const f = fence;
    if (role !== 'leader' || !f) return 'standby';
    return (await options.lease.holds(f)) ? 'leader' : 'standby';
  }

  return {
    run,
    confirmedRole,
    /** Resolves after the first attempt to take the lease (a lone process is leader by then). */
    firstTried: () => firstTried,
    get role(): WorkerRole {
      return role;
    },
  };
}

/**
 * Runs the alert inspector in one worker thread, one message at a time, under a wall-clock limit.
 * Parsing untrusted mail (MIME, HTML tables, bank patterns, DKIM canonicalization) can take
 * seconds or gigabytes on a crafted message; on the main thread that would stop the API, the
 * webhooks and every other source. Here it stops only the worker: past the limit the worker is
 * terminated, the message is rejected `inspector_timeout` and the next message gets a fresh worker.
 * DNS look-ups (DKIM keys, DMARC) are answered by the main thread's resolver; time spent waiting
 * for them does not count against the limit (the DNS deadline bounds it).
 *
 * The worker is a second V8 isolate holding mailparser, mailauth and the bank templates (~40 MB
 * resident): it starts with the first message to inspect and stops after `idleMs` without one.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { Logger } from '../../domain/ports.ts';
import type { AlertVerdict, InspectOptions } from './alert.ts';
import type { ToMain, ToWorker } from './inspector-protocol.ts';

export interface InspectorPool {
  inspect(raw: Buffer, opts: InspectOptions): Promise<AlertVerdict>;
  /** Terminates the worker; later calls start a new one. */
  close(): Promise<void>;
}

/** The worker could not be started (a broken install): no verdict, the message is tried again later. */
export class InspectorUnavailable extends Error {
  override name = 'InspectorUnavailable';
}

export interface PoolOptions {
  /** Wall-clock limit per message, ms (DNS waits excluded). */
  timeoutMs: number;
  log: Logger;
  /** Old-generation heap of the worker, MB: a message that needs more kills the worker, not payd. */
  maxHeapMb?: number;
  /** Limit on the worker's start (loading mailparser, mailauth, html-to-text), ms. */
  startTimeoutMs?: number;
  /** The worker stops after this long without a message to inspect, ms; the next message starts it again. */
  idleMs?: number;
}

/**
 * Alerts come in bursts or not at all (a shop's day, a quiet night): an idle minute gives the
 * memory back, while a burst pays the worker's start (~0.5 s from dist/ on a quiet machine) once.
 */
export const INSPECTOR_IDLE_MS = 60_000;

/**
 * The worker's entry: beside this module in the sources (run through tsx) and in dist/, where
 * scripts/build.mjs builds it as its own entry point.
 */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './inspect-worker.ts' : './inspect-worker.js', import.meta.url);

function newWorker(options: WorkerOptions): Worker {
  if (!WORKER_URL.pathname.endsWith('.ts')) return new Worker(WORKER_URL, options);
  // From the sources (tests; bin/payd without a build): Node 20 does not carry tsx's module hooks
  // into a worker thread, so the worker registers them itself before it loads its entry.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

type Job = { id: number; raw: Buffer; opts: InspectOptions; resolve: (v: AlertVerdict) => void; reject: (e: Error) => void };

export function createInspectorPool(options: PoolOptions): InspectorPool {
  let worker: Promise<Worker> | undefined;
  let live: Worker | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let nextId = 0;
  /** Messages handed to inspect() and not answered yet. */
  let pending = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const idleMs = options.idleMs ?? INSPECTOR_IDLE_MS;

  function stopWorker(): Promise<void> | undefined {
    const w = live;
    live = undefined;
    worker = undefined;
    return w?.terminate().then(() => {});
  }

  function armIdle(): void {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (pending > 0 || !live) return;
      options.log.info('alert inspector stopped while idle', { idleMs });
      void stopWorker();
    }, idleMs);
    // Never what keeps the daemon alive.
    idleTimer.unref();
  }

  function spawn(): Promise<Worker> {
    const started = performance.now();
    const w = newWorker({ resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 256 }, stdout: false, stderr: false });
    // The daemon's lifetime is the sources' business, not this thread's.
    w.unref();
    live = w;
    return new Promise<Worker>((resolve, reject) => {
      const fail = (err: Error) => {
        clearTimeout(timer);
        void w.terminate();
        if (live === w) live = undefined;
        reject(new InspectorUnavailable(`the alert inspector did not start: ${err.message}`, { cause: err }));
      };
      const timer = setTimeout(() => fail(new Error(`no answer within ${options.startTimeoutMs ?? 60_000} ms`)), options.startTimeoutMs ?? 60_000);
      w.once('error', fail);
      w.once('exit', (code) => fail(new Error(`exited with code ${code}`)));
      w.once('message', (m: ToMain) => {
        if (m.type !== 'ready') return fail(new Error(`unexpected first message ${m.type}`));
        clearTimeout(timer);
        options.log.info('alert inspector ready', { startMs: Math.round(performance.now() - started) });
        w.removeAllListeners('error').removeAllListeners('exit');
        // Died while idle: forget it, so the next message does not wait on a dead thread.
        w.on('error', () => {}).on('exit', () => {
          if (live !== w) return;
          live = undefined;
          worker = undefined;
        });
        resolve(w);
      });
    });
  }

  /**
   * A worker that timed out or died is terminated and a new one starts at once, so that its start
   * (from dist/: 1.9-5.3 s measured on the shared 2-core dev VM at load 12; more through tsx)
   * overlaps with writing the verdict and waiting for the next mail.
   */
  function replace(w: Worker): void {
    void w.terminate();
    if (live !== w) return;
    live = undefined;
    worker = spawn();
    worker.catch(() => {}); // reported to the next message, which tries again
  }

  async function runOne(job: Job): Promise<void> {
    let w: Worker;
    try {
      worker ??= spawn();
      w = await worker;
    } catch (err) {
      worker = undefined;
      job.reject(err as Error);
      return;
    }
    await new Promise<void>((done) => {
      let budget = options.timeoutMs;
      let since = performance.now();
      let dnsOutstanding = 0;
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        since = performance.now();
        timer = setTimeout(onTimeout, Math.max(0, budget));
      };
      const pause = () => {
        clearTimeout(timer);
        budget -= performance.now() - since;
      };
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        w.off('message', onMessage).off('error', onError).off('exit', onExit);
        fn();
        done();
      };
      const onTimeout = () => {
        replace(w);
        options.log.warn('alert inspection took too long: worker terminated', { limitMs: options.timeoutMs });
        finish(() => job.resolve({ kind: 'reject', reason: 'inspector_timeout', detail: { limitMs: options.timeoutMs } }));
      };
      const onError = (err: Error) => {
        replace(w);
        options.log.error('alert inspector thread died', { error: `${err.name}: ${err.message}` });
        finish(() => job.resolve({ kind: 'reject', reason: 'inspector_crash', detail: { error: `${err.name}: ${err.message}` } }));
      };
      const onExit = (code: number) => onError(new Error(`inspector thread exited with code ${code}`));
      const onMessage = (m: ToMain) => {
        if (m.type === 'done' && m.id === job.id) return finish(() => job.resolve(m.verdict));
        if (m.type === 'failed' && m.id === job.id) return finish(() => job.reject(new Error(m.error)));
        if (m.type !== 'dns' || m.id !== job.id) return;
        if (dnsOutstanding++ === 0) pause();
        const answer = (msg: ToWorker) => {
          if (live !== w) return; // terminated meanwhile
          w.postMessage(msg);
          if (--dnsOutstanding === 0) arm();
        };
        job.opts.resolver(m.name, m.rrtype).then(
          (value) => answer({ type: 'dns', q: m.q, ok: true, value }),
          (err: { message?: string; code?: string }) => answer({ type: 'dns', q: m.q, ok: false, error: { message: String(err?.message ?? err), ...(err?.code ? { code: String(err.code) } : {}) } }),
        );
      };
      w.on('message', onMessage).on('error', onError).on('exit', onExit);
      const { resolver: _resolver, ...opts } = job.opts;
      // A copy: the caller keeps its buffer (it may still be stored as the raw message).
      w.postMessage({ type: 'inspect', id: job.id, raw: new Uint8Array(job.raw), opts } satisfies ToWorker);
      arm();
    });
  }

  return {
    inspect(raw, opts) {
      pending++;
      clearTimeout(idleTimer);
      return new Promise<AlertVerdict>((resolve, reject) => {
        const job: Job = { id: ++nextId, raw, opts, resolve, reject };
        queue = queue.then(() => runOne(job)).finally(() => {
          if (--pending === 0) armIdle();
        });
      });
    },
    async close() {
      clearTimeout(idleTimer);
      await stopWorker();
    },
  };
}

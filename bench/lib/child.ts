import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Messages a bench child sends: `ready` once (with its data), `closed` after a close request. */
export type ChildMessage<T> = { type: 'ready'; data: T } | { type: 'error'; error: string } | { type: 'closed' } | { type: 'event'; data: unknown };

export interface Child<T> {
  data: T;
  proc: ChildProcess;
  /** Asks the child to close its servers and exit; kills it if it does not within `ms`. */
  close(ms?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
/** Last resort when the parent dies abruptly: kill only the children this process forked. */
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/** Forks `bench/lib/servers/<name>.ts` under tsx and waits for its `ready` message. */
export async function startChild<T>(name: string, args: string[] = [], o: { execArgv?: string[]; onEvent?: (data: any) => void; readyMs?: number } = {}): Promise<Child<T>> {
  const file = fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));
  const proc = fork(file, args, { execArgv: ['--import', 'tsx', ...(o.execArgv ?? [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  live.add(proc);
  proc.on('exit', () => live.delete(proc));
  const data = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bench child ${name} not ready in time`)), o.readyMs ?? 30_000);
    proc.on('message', (m: ChildMessage<T>) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m.data);
      } else if (m.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`bench child ${name}: ${m.error}`));
      } else if (m.type === 'event') o.onEvent?.(m.data);
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench child ${name} exited with ${code} before ready`));
    });
  }).catch((err) => {
    proc.kill('SIGKILL');
    throw err;
  });
  return {
    data,
    proc,
    close: (ms = 15_000) =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const timer = setTimeout(() => proc.kill('SIGKILL'), ms);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        proc.send({ type: 'close' });
      }),
  };
}

/** Child side: report readiness, then run `close` when the parent asks (or disconnects) and exit. */
export function serveChild<T>(start: () => Promise<{ data: T; close: () => Promise<void> }>, o: { onMessage?: (m: any) => void } = {}): void {
  const send = (m: ChildMessage<T>) => process.send?.(m);
  start().then(
    ({ data, close }) => {
      let closing = false;
      const stop = async () => {
        if (closing) return;
        closing = true;
        await close().catch((err) => console.error('bench child close failed:', err));
        process.exit(0);
      };
      process.on('message', (m: { type?: string }) => (m?.type === 'close' ? void stop() : o.onMessage?.(m)));
      process.on('disconnect', () => void stop());
      send({ type: 'ready', data });
    },
    (err) => {
      send({ type: 'error', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      process.exit(1);
    },
  );
}

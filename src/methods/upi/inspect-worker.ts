/**
 * The alert inspector's thread (node:worker_threads), started by inspector-pool.ts. It parses one
 * message at a time; DNS questions go to the main thread, which owns the resolver. A pathological
 * message can burn this thread's CPU or heap, never the main event loop; the pool terminates it
 * past the wall-clock limit.
 */
import { parentPort } from 'node:worker_threads';
import type { InspectOptions } from './alert.ts';
import { inspectAlert } from './inspect.ts';
import type { ToMain, ToWorker } from './inspector-protocol.ts';

const port = parentPort;
if (!port) throw new Error('inspect-worker.ts runs only as a worker thread');

// Test-only hook (the crash-loop test): with PAYD_TEST_INSPECTOR_KILL set to a long token, a message
// carrying `X-Payd-Test-Kill: <token>` kills the whole process, as an OOM kill or a native crash
// would. Unset in production, so no mail can reach it. Read here: this thread has no config.
const killToken = process.env.PAYD_TEST_INSPECTOR_KILL;

const pendingDns = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextQuestion = 0;

const send = (m: ToMain) => port.postMessage(m);

port.on('message', (m: ToWorker) => {
  if (m.type === 'dns') {
    const q = pendingDns.get(m.q);
    if (!q) return;
    pendingDns.delete(m.q);
    if (m.ok) q.resolve(m.value);
    else q.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
    return;
  }
  void run(m.id, Buffer.from(m.raw.buffer, m.raw.byteOffset, m.raw.byteLength), m.opts);
});

async function run(id: number, raw: Buffer, opts: Omit<InspectOptions, 'resolver'>): Promise<void> {
  if (killToken && killToken.length >= 16 && raw.includes(`X-Payd-Test-Kill: ${killToken}`)) process.kill(process.pid, 'SIGKILL');
  const resolver = (name: string, rrtype: string) =>
    new Promise<unknown>((resolve, reject) => {
      const q = ++nextQuestion;
      pendingDns.set(q, { resolve, reject });
      send({ type: 'dns', id, q, name, rrtype });
    });
  try {
    const verdict = await inspectAlert(raw, { ...opts, resolver });
    send({ type: 'done', id, verdict });
  } catch (err) {
    send({ type: 'failed', id, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
}

send({ type: 'ready' });

/** Messages between the inspector pool (main thread) and its worker thread. */
import type { AlertVerdict, InspectOptions } from './alert.ts';

export type ToWorker =
  | { type: 'inspect'; id: number; raw: Uint8Array; opts: Omit<InspectOptions, 'resolver'> }
  | { type: 'dns'; q: number; ok: true; value: unknown }
  | { type: 'dns'; q: number; ok: false; error: { message: string; code?: string } };

export type ToMain =
  | { type: 'ready' }
  | { type: 'dns'; id: number; q: number; name: string; rrtype: string }
  | { type: 'done'; id: number; verdict: AlertVerdict }
  | { type: 'failed'; id: number; error: string };

import type { Random } from '../domain/ports.ts';
import { jittered } from '../runtime/sleep.ts';

export type NextStep = { kind: 'delivered' } | { kind: 'retry'; atMs: number } | { kind: 'failed'; why: string };

/**
 * What follows attempt number `attempt` (1-based): 2xx is done; 410 Gone stops at once;
 * otherwise wait schedule[attempt-1] seconds ±20 % and try again, until the schedule runs out.
 */
export function nextStep(statusCode: number | null, attempt: number, schedule: number[], now: number, random: Random): NextStep {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'delivered' };
  if (statusCode === 410) return { kind: 'failed', why: 'receiver answered 410 Gone' };
  const waitSec = schedule[attempt - 1];
  if (waitSec === undefined) return { kind: 'failed', why: `gave up after ${attempt} attempts` };
  return { kind: 'retry', atMs: now + Math.round(jittered(waitSec * 1000, random)) };
}

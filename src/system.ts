import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock, Random } from './domain/ports.ts';

/** The real clock and randomness; tests pass their own. */
export const systemClock: Clock = { now: () => Date.now() };

export const systemRandom: Random = {
  bytes: (n) => randomBytes(n),
  uuid: () => randomUUID(),
  float: () => randomBytes(6).readUIntBE(0, 6) / 2 ** 48,
};

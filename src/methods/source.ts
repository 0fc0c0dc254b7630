import type { Clock, Ledger, Logger, Metrics, Random } from '../domain/ports.ts';

// The source contract is a port (domain/ports.ts): the workers that supervise sources see it there.
export type { DoctorResult, PaymentSource } from '../domain/ports.ts';

export interface SourceDeps {
  ledger: Ledger;
  clock: Clock;
  random: Random;
  log: Logger;
  /** Chain sources count their upstream requests and rate limits here (per endpoint). */
  upstreamMetrics?: Pick<Metrics, 'upstreamRequest' | 'upstreamThrottled'>;
}

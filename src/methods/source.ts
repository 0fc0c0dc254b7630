import type { Clock, DoctorResult, Ledger, Logger, Metrics, Random } from '../domain/ports.ts';

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

/**
 * `payd doctor`'s answer for a source with several upstream endpoints: one endpoint's own line
 * when there is one, else "N of M <kind> endpoints usable" with a line each; usable when any is.
 */
export function endpointsSummary(kind: string, lines: readonly DoctorResult[], labels: readonly string[]): DoctorResult {
  if (lines.length === 1) return lines[0]!;
  const usable = lines.filter((l) => l.ok).length;
  return { ok: usable > 0, message: `${usable} of ${lines.length} ${kind} endpoints usable`, endpoints: lines.map((l, i) => ({ ...l, what: labels[i]! })) };
}

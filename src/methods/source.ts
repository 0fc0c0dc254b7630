import type { Clock, Ledger, Logger, Metrics, Random } from '../domain/ports.ts';

/**
 * A payment source watches one upstream (mailbox, TronGrid, Solana RPC) and feeds
 * every observation, adapted to a ReceivedPayment, into the ledger.
 */
export interface PaymentSource {
  /** e.g. "upi-imap", "tron:T…", "solana:SOL:<wallet>". */
  readonly name: string;
  /** The method it feeds ("UPI", "SOL", …): /readyz and /metrics name it by this (default: name). */
  readonly method?: string;
  /** Runs until the signal aborts. Must never throw for upstream faults: log and back off. */
  run(signal: AbortSignal): Promise<void>;
  /** One-shot health check for `payd doctor`. */
  check(signal: AbortSignal): Promise<DoctorResult>;
}

export interface DoctorResult {
  ok: boolean;
  message: string;
  /** With several endpoints: one line each (`what` names the endpoint, without its key). */
  endpoints?: { ok: boolean; what: string; message: string }[];
}

export interface SourceDeps {
  ledger: Ledger;
  clock: Clock;
  random: Random;
  log: Logger;
  /** Chain sources count their upstream requests and rate limits here (per endpoint). */
  upstreamMetrics?: Pick<Metrics, 'upstreamRequest' | 'upstreamThrottled'>;
}

import type { Method } from './methods.ts';
import type { IngestOutcome, ReceivedPayment, RejectedObservation } from './payment.ts';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface Random {
  bytes(n: number): Uint8Array;
  uuid(): string;
  /** Uniform in [0, 1); for jitter only, never for secrets. */
  float(): number;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /**
   * The HTTP request line: the same entry as `info('request', …)` with these fields (client_id
   * for clientId). A logger may write this one fixed shape faster; without it, `info` is used.
   */
  request?(entry: RequestLogEntry): void;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  clientId?: string;
}

/** A checkpoint written in the same transaction as the outcome it follows. */
export interface CheckpointUpdate {
  key: string;
  value: unknown;
}

/**
 * What a payment source may do with the store. Implemented once by the pipeline;
 * every method's source is written against this port.
 */
export interface Ledger {
  /** Record → de-duplicate → match → settle, in one transaction (with the checkpoint, if given). */
  ingest(payment: ReceivedPayment, checkpoint?: CheckpointUpdate): Promise<IngestOutcome>;
  /** Keep a rejected observation for the operator (idempotent on `ref`). */
  reject(observation: RejectedObservation, checkpoint?: CheckpointUpdate): Promise<void>;
  loadCheckpoint<T>(key: string): Promise<T | undefined>;
  saveCheckpoint(update: CheckpointUpdate): Promise<void>;
  /** Whether any intent of this method/receiver could still be settled (pending, or expired within the reuse window). */
  hasOpenIntents(method: Method, receiver: string): Promise<boolean>;
}

/**
 * What services count, for /metrics. Labels are small closed sets (method, reason,
 * result), never ids. The Prometheus implementation lives in src/metrics/; tests and
 * the CLI use noopMetrics.
 */
export interface Metrics {
  intentCreated(method: Method): void;
  intentSettled(method: Method): void;
  intentExpired(method: Method): void;
  paymentUnmatched(method: Method, reason: string): void;
  paymentRejected(method: Method, reason: string): void;
  /** One webhook attempt: its result and how long the POST took, seconds. */
  webhookAttempt(result: 'delivered' | 'retry' | 'failed', durationSeconds: number): void;
  /** An event delivered: seconds from the event's creation to the successful attempt. */
  webhookDelivered(latencySeconds: number): void;
  /** Share (0..1) of the unique-amount window a create had to search to find a free pay_amount. */
  amountPoolUse(method: Method, receiver: string, ratio: number): void;
  /** One request to a chain upstream, by endpoint (its URL without key or query) and outcome. */
  upstreamRequest(endpoint: string, outcome: 'ok' | 'throttled' | 'error'): void;
  /** An endpoint asked to be left alone (a rate limit) for this long, seconds. */
  upstreamThrottled(endpoint: string, seconds: number): void;
}

export const noopMetrics: Metrics = {
  intentCreated: () => {},
  intentSettled: () => {},
  intentExpired: () => {},
  paymentUnmatched: () => {},
  paymentRejected: () => {},
  webhookAttempt: () => {},
  webhookDelivered: () => {},
  amountPoolUse: () => {},
  upstreamRequest: () => {},
  upstreamThrottled: () => {},
};

/**
 * "Something changed" signals between every process sharing one database: outbox events
 * (webhook delivery) and intent state (the checkout's live status). Only a hint to look
 * again: readers always read the database, and poll it as a safety net.
 */
export interface Wakeups {
  /** After a commit that wrote outbox events, naming the intents it changed (none: events only). */
  publish(intentIds?: readonly string[]): void;
  /**
   * `fn(ids)` for each published change; `fn(null)` when changes may have been missed (the
   * listening connection came back): look at everything again. Returns the unsubscribe.
   */
  subscribe(fn: (intentIds: readonly string[] | null) => void): () => void;
  /** Sends what is still being published, then stops listening. */
  close(): Promise<void>;
}

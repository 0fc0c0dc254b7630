/** Building the web3.js Connection so that every failure surfaces to our loop's backoff. */
import { Connection, type Commitment, type ConnectionConfig, type Finality } from '@solana/web3.js';
import { DeadlineError, withDeadline } from '../deadline.ts';
import { readBoundedText } from '../../runtime/bounded-body.ts';
import type { EndpointSpec } from '../endpoints.ts';

/** One RPC endpoint and its Connection. */
export interface SolanaEndpoint extends EndpointSpec {
  conn: Connection;
}

export type ConnectionFactory = (rpcUrl: string, config: ConnectionConfig) => Connection;

export interface RpcOptions {
  rpcUrl: string;
  wsUrl: string | null;
  requestTimeoutMs: number;
  fetch?: typeof globalThis.fetch;
  connectionFactory?: ConnectionFactory;
  /** Told how each HTTP request went (the endpoint pool's health and metrics); not on shutdown. */
  observe?: (r: RpcExchange) => void;
}

/** One request's answer (status, headers, body text) or failure, and how long it took, ms. */
export type RpcExchange = { ms: number; status: number; headers: Headers; body: string } | { ms: number; error: unknown };

/**
 * A Connection whose requests end on `signal` or after `requestTimeoutMs`, and that
 * never retries a 429 itself (web3.js otherwise sleeps up to ~7.5 s inside one call,
 * hiding the rate limit from runLoop's jittered backoff).
 */
export function openConnection(options: RpcOptions, signal: AbortSignal): Connection {
  const config: ConnectionConfig = {
    fetch: deadlineFetch(options.fetch ?? globalThis.fetch, options.requestTimeoutMs, signal, options.observe),
    disableRetryOnRateLimit: true,
    // Our fetch manages its own sockets; web3.js's keep-alive agent would be unused.
    httpAgent: false,
    ...(options.wsUrl ? { wsEndpoint: options.wsUrl } : {}),
  };
  return (options.connectionFactory ?? ((url, c) => new Connection(url, c)))(options.rpcUrl, config);
}

/** Our largest answers (1,000 signatures, a parsed transaction) are well under 1 MB; an endless one must not cost the process. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** One request, headers and body, ends within `ms` or on `signal` (the helper TronGrid's client uses too). */
function deadlineFetch(base: typeof globalThis.fetch, ms: number, signal: AbortSignal, observe?: (r: RpcExchange) => void): typeof globalThis.fetch {
  return (input, init) => {
    const started = performance.now();
    return withDeadline(ms, signal, async (s) => {
      const res = await base(input, { ...init, signal: s });
      const body = await readBoundedText(res, MAX_ANSWER_BYTES); // inside the deadline too: a stalled body is a hung request
      observe?.({ ms: performance.now() - started, status: res.status, headers: res.headers, body });
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    }).catch((err: unknown) => {
      const out = err instanceof DeadlineError ? new DeadlineError(ms, `RPC request timed out after ${ms} ms`) : err;
      if (!signal.aborted) observe?.({ ms: performance.now() - started, error: out });
      throw out;
    });
  };
}

/**
 * How one answer reads for the endpoint's health: HTTP 429 (the public RPC's and most providers'),
 * 403 (the public RPC's "blocked"), or JSON-RPC error -32429 (Helius) in an HTTP 200 are rate
 * limits, waited out for the Retry-After they name; 5xx is an error; anything else answered.
 */
export function readExchange(exchange: RpcExchange, now: number): { kind: 'ok' } | { kind: 'throttled'; retryAfterMs?: number; error: string } | { kind: 'error'; error: string } {
  if ('error' in exchange) return { kind: 'error', error: exchange.error instanceof Error ? exchange.error.message : String(exchange.error) };
  const limited = exchange.status === 429 || exchange.status === 403 || (exchange.status === 200 && /"code"\s*:\s*-32429\b/.test(exchange.body.slice(0, 2000)));
  if (limited) return { kind: 'throttled', retryAfterMs: retryAfterMs(exchange.headers.get('retry-after'), now), error: `HTTP ${exchange.status}: ${exchange.body.slice(0, 200)}` };
  if (exchange.status >= 500) return { kind: 'error', error: `HTTP ${exchange.status}: ${exchange.body.slice(0, 200)}` };
  return { kind: 'ok' };
}

/** Retry-After as seconds or an HTTP date, ms from now, at most 5 minutes (a bogus value must not stall us). */
function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const t = header.trim();
  const ms = /^\d+$/.test(t) ? Number(t) * 1000 : Date.parse(t) - now;
  return Number.isNaN(ms) ? undefined : Math.min(300_000, Math.max(0, ms));
}

/**
 * getSignaturesForAddress and getTransaction accept only confirmed or finalized;
 * "processed" is read as confirmed (the closest the RPC serves for history).
 */
export const historyCommitment = (c: Commitment | undefined): Finality => (c === 'confirmed' || c === 'processed' ? 'confirmed' : 'finalized');

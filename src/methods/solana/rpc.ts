/** Building the web3.js Connection so that every failure surfaces to our loop's backoff. */
import { Connection, type Commitment, type ConnectionConfig, type Finality } from '@solana/web3.js';
import { DeadlineError, withDeadline } from '../deadline.ts';

export type ConnectionFactory = (rpcUrl: string, config: ConnectionConfig) => Connection;

export interface RpcOptions {
  rpcUrl: string;
  wsUrl: string | null;
  requestTimeoutMs: number;
  fetch?: typeof globalThis.fetch;
  connectionFactory?: ConnectionFactory;
}

/**
 * A Connection whose requests end on `signal` or after `requestTimeoutMs`, and that
 * never retries a 429 itself (web3.js otherwise sleeps up to ~7.5 s inside one call,
 * hiding the rate limit from runLoop's jittered backoff).
 */
export function openConnection(o: RpcOptions, signal: AbortSignal): Connection {
  const config: ConnectionConfig = {
    fetch: deadlineFetch(o.fetch ?? globalThis.fetch, o.requestTimeoutMs, signal),
    disableRetryOnRateLimit: true,
    // Our fetch manages its own sockets; web3.js's keep-alive agent would be unused.
    httpAgent: false,
    ...(o.wsUrl ? { wsEndpoint: o.wsUrl } : {}),
  };
  return (o.connectionFactory ?? ((url, c) => new Connection(url, c)))(o.rpcUrl, config);
}

/** One request, headers and body, ends within `ms` or on `signal` (the helper TronGrid's client uses too). */
function deadlineFetch(base: typeof globalThis.fetch, ms: number, signal: AbortSignal): typeof globalThis.fetch {
  return (input, init) =>
    withDeadline(ms, signal, async (s) => {
      const res = await base(input, { ...init, signal: s });
      const body = await res.text(); // inside the deadline too: a stalled body is a hung request
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    }).catch((err: unknown) => {
      throw err instanceof DeadlineError ? new DeadlineError(ms, `RPC request timed out after ${ms} ms`) : err;
    });
}

/**
 * getSignaturesForAddress and getTransaction accept only confirmed or finalized;
 * "processed" is read as confirmed (the closest the RPC serves for history).
 */
export const historyCommitment = (c: Commitment | undefined): Finality => (c === 'confirmed' || c === 'processed' ? 'confirmed' : 'finalized');

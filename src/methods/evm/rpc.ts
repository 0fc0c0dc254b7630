/**
 * One EVM JSON-RPC endpoint, called through viem's HTTP client (on its own or through the pool,
 * which records how each call went), the results the scan reads, and what its refusals mean.
 * Provider wire shapes: getLogs limits and rate limits as providers answer them (Infura,
 * Alchemy, QuickNode, BSC's public nodes, Ankr, publicnode, llamarpc, Arbitrum, Base, Polygon).
 */
import { getHttpRpcClient } from 'viem/utils';
import { withDeadline } from '../deadline.ts';
import type { EndpointSpec } from '../endpoints.ts';
import type { Fault, Member } from '../upstream-health.ts';
import type { UpstreamPool } from '../upstream-pool.ts';

/** An answer that is not a result: the RPC error as the provider sent it (never the URL: it may hold a key). */
export class EvmRpcError extends Error {
  override name = 'EvmRpcError';
  constructor(
    readonly code: number | undefined,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(code === undefined ? message : `${message} (code ${code})`);
  }
  /** The provider's own message, without the code. */
  get detail(): string {
    return this.code === undefined ? this.message : this.message.replace(/ \(code -?\d+\)$/, '');
  }
}

export interface EvmEndpoint extends EndpointSpec {
  rpc?: EvmRpc;
}

export type EvmRpc = <T>(method: string, params: unknown[], signal: AbortSignal) => Promise<T>;

/** A log as eth_getLogs and a receipt list it (the fields the scan reads). */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

/** eth_getTransactionReceipt's answer (the fields the scan reads). */
export interface RpcReceipt {
  status: string;
  blockHash: string;
  blockNumber: string;
  logs: RpcLog[];
}

/** eth_getBlockByNumber's answer (the fields the scan reads). */
export interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
}

export function createEvmRpc(url: string, timeoutMs: number, fetchFn?: typeof globalThis.fetch): EvmRpc {
  const client = getHttpRpcClient(url, { timeout: 0, ...(fetchFn ? { fetchFn } : {}) });
  let id = 0;
  return async <T>(method: string, params: unknown[], signal: AbortSignal): Promise<T> =>
    withDeadline(timeoutMs, signal, async (s) => {
      let reply: { result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
      try {
        reply = (await client.request({ body: { jsonrpc: '2.0', id: ++id, method, params }, fetchOptions: { signal: s } })) as typeof reply;
      } catch (err) {
        throw fromViem(err);
      }
      if (reply.error) throw new EvmRpcError(reply.error.code, String(reply.error.message ?? 'error'));
      return reply.result as T;
    });
}

/** viem's errors name the URL (and so the key); keep only the status, the code and the provider's words. */
function fromViem(err: unknown): unknown {
  const e = err as { name?: string; status?: number; code?: number; details?: string; shortMessage?: string; headers?: Headers; cause?: { message?: string; code?: number } };
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return err;
  if (e?.name === 'RpcRequestError' || e?.name === 'HttpRequestError') {
    const retryAfter = Number(e.headers?.get?.('retry-after'));
    return new EvmRpcError(e.cause?.code ?? e.code, (e.cause?.message ?? e.details ?? 'HTTP error').slice(0, 500), e.status, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined);
  }
  return new Error(`request failed: ${(e?.details ?? e?.shortMessage ?? String(err)).slice(0, 300)}`);
}

/**
 * A getLogs refusal that asks for a smaller block range, and the range it suggests (inclusive),
 * if any. BSC's bare `-32005 "limit exceeded"` is its rate limit, not a range limit.
 */
export function rangeRefusal(err: unknown): { suggested?: { from: bigint; to: bigint }; cap?: bigint } | undefined {
  if (!(err instanceof EvmRpcError)) return undefined;
  const msg = err.detail;
  const ranged =
    err.status === 413 ||
    /block range|range too large|too wide|more than \d+ results|exceeds? (max|limit)|max results|blocks distance|limit the query|response size exceeded|limited to a [\d,]+ range|exceed maximum block range|range \d+ exceeds/i.test(msg);
  if (!ranged) return undefined;
  const m = /\[\s*0x([0-9a-f]+)\s*,\s*0x([0-9a-f]+)\s*\]/i.exec(msg);
  if (m) return { suggested: { from: BigInt('0x' + m[1]), to: BigInt('0x' + m[2]) } };
  // "max: 3500", "exceed maximum block range: 5000", "limited to a 10,000 range", "at most 1000 blocks", "up to a 500 block range"
  const cap = /(?:max(?:imum block range)?:?|limited to a|at most|up to a|distance:?|exceeds limit of)\s*([\d,]+)/i.exec(msg);
  if (cap) return { cap: BigInt(cap[1]!.replace(/,/g, '')) };
  return {};
}

/** How a failed call weighs on its endpoint: a rate limit rests it for what it asked, anything else backs off. */
export function classify(err: unknown): Fault {
  if (err instanceof EvmRpcError) {
    const throttled =
      err.status === 429 ||
      err.status === 402 ||
      (err.code !== undefined && [429, 402, -32007, -32012, -32016].includes(err.code)) ||
      /rate limit|too many requests|request limit|limit exceeded|capacity|credits|exceeded its compute units/i.test(err.detail);
    if (throttled) return { kind: 'throttled', ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}) };
  }
  return { kind: 'error' };
}

/** One call to `m`, recorded nowhere: the caller weighs its outcome. */
export const callRpc = <T>(m: Member<EvmEndpoint>, signal: AbortSignal, method: string, params: unknown[]): Promise<T> => m.spec.rpc!<T>(method, params, signal);

/** One call to `m` through the pool, which records in `m`'s health how it went. */
export const attemptRpc = (pool: UpstreamPool<EvmEndpoint>, m: Member<EvmEndpoint>, signal: AbortSignal, method: string, params: unknown[]) => pool.attempt(m, signal, () => callRpc<unknown>(m, signal, method, params), classify);

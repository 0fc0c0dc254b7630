/** One HTTP request to TronGrid's TRC20 listing; faults become TronGridError. */
import type { fetch as undiciFetch } from 'undici';
import { PaydError } from '../../domain/errors.ts';

export type Fetch = typeof undiciFetch;

export interface Trc20Query {
  address: string;
  contract: string;
  /** ms; omitted for the doctor's probe. */
  minTimestamp?: number;
  limit: number;
  fingerprint?: string;
}

export interface TronGridClientOptions {
  apiUrl: string;
  apiKey?: string;
  fetch: Fetch;
  timeoutMs: number;
  now: () => number;
  /** Upper bound on a Retry-After we obey, ms; a bogus header must not stall us for days. */
  maxRetryAfterMs?: number;
}

/** An upstream fault: HTTP status (0 for no answer) and, when rate limited, how long to wait. */
export class TronGridError extends PaydError {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterMs?: number,
    cause?: unknown,
  ) {
    super('UPSTREAM', message, { cause });
    this.name = 'TronGridError';
  }
}

export function trc20Url(apiUrl: string, q: Trc20Query): string {
  const url = new URL(`${apiUrl.replace(/\/+$/, '')}/v1/accounts/${encodeURIComponent(q.address)}/transactions/trc20`);
  const p = url.searchParams;
  p.set('only_confirmed', 'true');
  p.set('only_to', 'true');
  p.set('contract_address', q.contract);
  p.set('limit', String(q.limit));
  // Oldest first, so the checkpoint can advance with every transfer handled.
  p.set('order_by', 'block_timestamp,asc');
  if (q.minTimestamp !== undefined) p.set('min_timestamp', String(q.minTimestamp));
  if (q.fingerprint !== undefined) p.set('fingerprint', q.fingerprint);
  return url.toString();
}

/** Retry-After as delay-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number, maxMs: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(maxMs, Math.max(0, ms));
}

export function createTronGridClient(o: TronGridClientOptions) {
  const maxRetryAfterMs = o.maxRetryAfterMs ?? 5 * 60_000;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (o.apiKey) headers['TRON-PRO-API-KEY'] = o.apiKey;

  /** GET one page; resolves with the parsed JSON body of a 200, throws TronGridError otherwise. */
  async function listTrc20(q: Trc20Query, signal: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(o.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    const url = trc20Url(o.apiUrl, q);
    try {
      // redirect: 'error' so the API key is never replayed to another host.
      const res = await o.fetch(url, { headers, signal: both, redirect: 'error' });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => {});
        const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), o.now(), maxRetryAfterMs);
        throw new TronGridError(`TronGrid answered HTTP ${res.status}`, res.status, retryAfterMs);
      }
      const text = await res.text();
      try {
        return JSON.parse(text);
      } catch {
        throw new TronGridError('TronGrid answered with invalid JSON', res.status);
      }
    } catch (err) {
      if (err instanceof TronGridError) throw err;
      if (timeout.aborted && !signal.aborted) throw new TronGridError(`TronGrid did not answer within ${o.timeoutMs} ms`, 0, undefined, err);
      if (signal.aborted) throw err;
      throw new TronGridError(`TronGrid request failed: ${describeCause(err)}`, 0, undefined, err);
    }
  }

  return { listTrc20 };
}

export type TronGridClient = ReturnType<typeof createTronGridClient>;

/** undici hides the socket error ("ECONNREFUSED") in `cause`. */
function describeCause(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as (Error & { code?: string }) | undefined;
  if (cause?.code) return `${cause.code} ${cause.message}`;
  return cause?.message ?? err.message;
}

/** One HTTP request to TronGrid's TRC20 listing; faults become TronGridError. */
import type { fetch as undiciFetch } from 'undici';
import { PaydError } from '../../domain/errors.ts';
import { DeadlineError, withDeadline } from '../deadline.ts';
import { BodyTooLargeError, readBoundedText } from '../../runtime/bounded-body.ts';

export type Fetch = typeof undiciFetch;

export interface Trc20Query {
  address: string;
  contract: string;
  /** ms; omitted for the doctor's probe. */
  minTimestamp?: number;
  /** ms, inclusive; only a confirmation's window sets it. */
  maxTimestamp?: number;
  limit: number;
  fingerprint?: string;
}

export interface TronGridClientOptions {
  apiUrl: string;
  apiKey?: string;
  fetch: Fetch;
  timeoutMs: number;
  now: () => number;
  /** Upper bound on a wait we obey (body or Retry-After), ms; a bogus value must not stall us for days. */
  maxRetryAfterMs?: number;
  /** What a provider says is left of its quota (X-RateLimit-Remaining), when it says it; TronGrid does not. */
  onQuota?: (remaining: string) => void;
}

/**
 * What a fault means for us. TronGrid signals rate limits with 429, 403 (anonymous
 * penalty, keyed quota) and, on older deployments, 503, and sometimes inside an HTTP
 * 200 body; a rejected key is 401 `{"Error":"ApiKey not exists"}` (test/fixtures/chains/REAL-UPSTREAMS.md §1.3).
 */
export type TronGridFault = 'rate_limited' | 'key_rejected' | 'upstream' | 'unreachable';

/** An upstream fault: HTTP status (0 for no answer), its kind, what TronGrid said, and how long to wait. */
export class TronGridError extends PaydError {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterMs?: number,
    cause?: unknown,
    readonly fault: TronGridFault = status === 0 ? 'unreachable' : 'upstream',
    /** TronGrid's own words (`Error` / `error` of the body), trimmed. */
    readonly said?: string,
  ) {
    super('UPSTREAM', message, { cause });
    this.name = 'TronGridError';
  }
}

export function trc20Url(apiUrl: string, q: Trc20Query): string {
  const url = new URL(`${apiUrl.replace(/\/+$/, '')}/v1/accounts/${encodeURIComponent(q.address)}/transactions/trc20`);
  const p = url.searchParams;
  p.set('only_confirmed', 'true');
  // Both directions: a transaction's rows from our address are netted against its rows to us (netting.ts).
  p.set('contract_address', q.contract);
  p.set('limit', String(q.limit));
  // Oldest first, so the checkpoint can advance with every transfer handled.
  p.set('order_by', 'block_timestamp,asc');
  if (q.minTimestamp !== undefined) p.set('min_timestamp', String(q.minTimestamp));
  if (q.maxTimestamp !== undefined) p.set('max_timestamp', String(q.maxTimestamp));
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

/** TronGrid's words in an error body: `{"Error": …}` (current) or `{"error": …}` (v1 envelope). */
export function errorText(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const said = typeof b.Error === 'string' ? b.Error : typeof b.error === 'string' ? b.error : typeof b.message === 'string' ? b.message : undefined;
  return said?.slice(0, 300);
}

const RATE_WORDS = /rate|frequency|suspended|exceed|too many|limit/i;

/** Sorts a fault by status and TronGrid's words; never blames the key for a rate limit. */
export function classify(status: number, said: string | undefined): TronGridFault {
  if (status === 429 || status === 503) return 'rate_limited';
  if (said !== undefined && RATE_WORDS.test(said)) return 'rate_limited';
  if (status === 401 || status === 403) return 'key_rejected';
  return 'upstream';
}

/**
 * The wait TronGrid names in prose ("… the query server is suspended for 5 s", "… for 30s"),
 * in ms, with half a second to spare (the suspension was measured at about 5.5 s for "5 s").
 */
export function suspensionMs(said: string | undefined, maxMs: number): number | undefined {
  const m = said === undefined ? null : /suspended for (\d+(?:\.\d+)?)\s*s/i.exec(said);
  if (!m) return undefined;
  return Math.min(maxMs, Math.round(Number(m[1]) * 1000) + 500);
}

/** A full page (200 rows) is ~150 kB; far beyond that is not a TronGrid answer. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export function createTronGridClient(options: TronGridClientOptions) {
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 5 * 60_000;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.apiKey) headers['TRON-PRO-API-KEY'] = options.apiKey;

  function fault(status: number, body: unknown, retryAfter: string | null): TronGridError {
    const said = errorText(body);
    const kind = classify(status, said);
    const waits = [suspensionMs(said, maxRetryAfterMs), parseRetryAfter(retryAfter, options.now(), maxRetryAfterMs)].filter((x): x is number => x !== undefined);
    const wait = waits.length ? Math.max(...waits) : undefined;
    const what = kind === 'rate_limited' ? 'rate-limited us' : kind === 'key_rejected' ? 'refused the request' : 'answered with an error';
    return new TronGridError(`TronGrid ${what} (HTTP ${status}${said ? `: ${said}` : ''})`, status, wait, undefined, kind, said);
  }

  /** GET one page; resolves with the parsed JSON body of a 200, throws TronGridError otherwise. */
  const listTrc20 = (q: Trc20Query, signal: AbortSignal): Promise<unknown> => getJson(trc20Url(options.apiUrl, q), signal);

  /**
   * The newest solidified block: GET /walletsolidity/getnowblock, java-tron's HTTP API that TronGrid
   * serves (developers.tron.network/reference/getnowblock-1): `{ blockID, block_header: { raw_data:
   * { number, timestamp, … } } }`. Confirmed (only_confirmed) transfers are listed up to it.
   */
  async function solidifiedHead(signal: AbortSignal): Promise<{ number: number; timestamp: number }> {
    const body = await getJson(`${options.apiUrl.replace(/\/+$/, '')}/walletsolidity/getnowblock`, signal);
    const raw = (body as { block_header?: { raw_data?: { number?: unknown; timestamp?: unknown } } } | null)?.block_header?.raw_data;
    const number = raw?.number;
    const timestamp = raw?.timestamp;
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) throw new TronGridError('TronGrid getnowblock has no block number', 200);
    return { number, timestamp: typeof timestamp === 'number' ? timestamp : 0 };
  }

  async function getJson(url: string, signal: AbortSignal): Promise<unknown> {
    try {
      return await withDeadline(options.timeoutMs, signal, async (s) => {
        // redirect: 'error' so the API key is never replayed to another host.
        const res = await options.fetch(url, { headers, signal: s, redirect: 'error' });
        const quota = res.headers.get('x-ratelimit-remaining') ?? res.headers.get('x-rate-limit-remaining');
        if (quota !== null) options.onQuota?.(quota);
        const text = await readBoundedText(res, MAX_ANSWER_BYTES).catch((err: unknown) => {
          throw err instanceof BodyTooLargeError ? new TronGridError(`TronGrid ${err.message}`, res.status) : err;
        });
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          if (res.status !== 200) throw fault(res.status, undefined, res.headers.get('retry-after'));
          throw new TronGridError('TronGrid answered with invalid JSON', res.status);
        }
        if (res.status !== 200) throw fault(res.status, body, res.headers.get('retry-after'));
        // TronGrid can answer an error inside an HTTP 200 (`{"Error": …}` with no data).
        if (typeof body === 'object' && body !== null && typeof (body as { Error?: unknown }).Error === 'string' && !Array.isArray((body as { data?: unknown }).data)) {
          throw fault(200, body, res.headers.get('retry-after'));
        }
        return body;
      });
    } catch (err) {
      if (err instanceof TronGridError) throw err;
      if (err instanceof DeadlineError) throw new TronGridError(`TronGrid did not answer within ${options.timeoutMs} ms`, 0, undefined, err);
      if (signal.aborted) throw err;
      throw new TronGridError(`TronGrid request failed: ${describeCause(err)}`, 0, undefined, err);
    }
  }

  return { listTrc20, solidifiedHead };
}

export type TronGridClient = ReturnType<typeof createTronGridClient>;

/** undici hides the socket error ("ECONNREFUSED") in `cause`. */
function describeCause(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as (Error & { code?: string }) | undefined;
  if (cause?.code) return `${cause.code} ${cause.message}`;
  return cause?.message ?? err.message;
}

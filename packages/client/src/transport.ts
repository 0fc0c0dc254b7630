import { PaydApiError, PaydNetworkError } from './errors.js';
import type { FieldError } from './types.js';

export interface TransportOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
  maxRetryAfterSeconds: number;
  /** First backoff step; doubled per retry, with full jitter. */
  retryDelayMs: number;
}

export interface Call {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /**
   * Safe to send again when the first answer was lost or a 5xx: reads, the intent creates (payd
   * answers a repeated order_id with the intent it already made), and a link's deactivate or
   * activate (it sets a state). A cancel, an accept, a link's create or a secret rotation is not
   * replayed: the caller learns of the failure and decides.
   */
  replayable: boolean;
}

const MAX_BACKOFF_MS = 5_000;

/** One API call: credentials, JSON, the retry rule, and payd's errors as PaydApiError. */
export function createTransport(options: TransportOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const backoff = (attempt: number) => Math.random() * Math.min(MAX_BACKOFF_MS, options.retryDelayMs * 2 ** attempt);

  return async function call<T>(c: Call): Promise<T> {
    const url = new URL(base + c.path);
    for (const [name, value] of Object.entries(c.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json', 'x-client-id': options.clientId, 'x-client-secret': options.clientSecret };
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    const body = c.body === undefined ? undefined : JSON.stringify(c.body);

    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < options.maxRetries;
      let res: Response;
      let text: string;
      try {
        res = await options.fetch(url, { method: c.method, headers, body, signal: AbortSignal.timeout(options.timeoutMs) });
        text = await res.text();
      } catch (err) {
        if (c.replayable && canRetry) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new PaydNetworkError(`${c.method} ${c.path}: no answer from payd (${describe(err)})`, { cause: err });
      }
      if (res.ok) {
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new PaydApiError({ status: res.status, code: `HTTP_${res.status}`, detail: 'the answer is not JSON (is baseUrl payd?)' });
        }
      }
      const error = apiError(res, text);
      // A 429 is refused before payd reads the request, so any call may be sent again;
      // a 5xx only when sending again cannot do the thing twice.
      const retryable = res.status === 429 || (c.replayable && res.status >= 500);
      if (!retryable || !canRetry) throw error;
      if (error.retryAfter !== undefined) {
        // A longer wait than the caller allows is theirs to decide (an AMOUNT_UNAVAILABLE may say hours).
        if (error.retryAfter > options.maxRetryAfterSeconds) throw error;
        await sleep(error.retryAfter * 1000);
      } else {
        await sleep(backoff(attempt));
      }
    }
  };
}

export type Transport = ReturnType<typeof createTransport>;

function apiError(res: Response, text: string): PaydApiError {
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  let parsed: { code?: unknown; detail?: unknown; errors?: unknown } | undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed.code === 'string') {
    const errors = Array.isArray(parsed.errors) ? (parsed.errors as FieldError[]) : undefined;
    return new PaydApiError({ status: res.status, code: parsed.code, detail: typeof parsed.detail === 'string' ? parsed.detail : '', errors, retryAfter });
  }
  // Not payd's error body: a proxy or load balancer answered.
  return new PaydApiError({ status: res.status, code: `HTTP_${res.status}`, detail: res.statusText || 'error without a payd body', retryAfter });
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

const describe = (err: unknown): string => {
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return err instanceof Error ? `${err.message}${cause}` : String(err);
};

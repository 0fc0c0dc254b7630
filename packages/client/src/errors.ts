import type { ErrorCode, FieldError } from './types.js';

/** Base of everything this client throws, so one `instanceof PaydError` catches them all. */
export class PaydError extends Error {
  override name = 'PaydError';
}

/** payd answered with an error: its HTTP status, `code`, `detail` and, for INVALID_REQUEST, `errors[]`. */
export class PaydApiError extends PaydError {
  override name = 'PaydApiError';
  readonly status: number;
  /** One of the API's codes (`INTENT_NOT_FOUND`, `ORDER_ID_CONFLICT`, …); `HTTP_<status>` when the body was not payd's JSON (a proxy's page). */
  readonly code: ErrorCode | (string & {});
  readonly detail: string;
  readonly errors: FieldError[];
  /** Seconds the server asked to wait (`Retry-After` on 429 and 503), when it said. */
  readonly retryAfter: number | undefined;

  constructor(o: { status: number; code: string; detail: string; errors?: FieldError[]; retryAfter?: number }) {
    super(`${o.code}: ${o.detail}`);
    this.status = o.status;
    this.code = o.code;
    this.detail = o.detail;
    this.errors = o.errors ?? [];
    this.retryAfter = o.retryAfter;
  }
}

/** No answer from payd (connection refused or reset, DNS, timeout): the request may or may not have been processed. */
export class PaydNetworkError extends PaydError {
  override name = 'PaydNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A webhook that must not be trusted: missing headers, a bad or unknown signature, or a timestamp outside the tolerance. */
export class WebhookVerificationError extends PaydError {
  override name = 'WebhookVerificationError';
}

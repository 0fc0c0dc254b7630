import { HTTPResponse } from 'h3';
import { PaydError, type ErrorCode } from '../domain/errors.ts';
import { stringifyJson } from '../domain/json.ts';

/** The one code → HTTP status table. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  AUTH_INVALID_HEADERS: 401,
  AUTH_INVALID_SECRET: 403,
  INVALID_REQUEST: 400,
  METHOD_UNSUPPORTED: 400,
  AMOUNT_OUT_OF_RANGE: 400,
  ORDER_ID_CONFLICT: 409,
  INTENT_NOT_FOUND: 404,
  INTENT_NOT_CANCELABLE: 409,
  PAYMENT_NOT_ACCEPTABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  AMOUNT_UNAVAILABLE: 503,
  RATE_UNAVAILABLE: 503,
  PRICING_NOT_CONFIGURED: 400,
  BUSY: 503,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  FORBIDDEN: 403,
  CONFLICT: 409,
  CONFIG_INVALID: 500,
  UPSTREAM: 502,
  INTERNAL: 500,
};

export const JSON_TYPE = 'application/json; charset=utf-8';

const BASE_HEADERS = { 'content-type': JSON_TYPE, 'cache-control': 'no-store' };

/** Headers that refuse changes, so one constant instance can serve every reply. */
class ReadOnlyHeaders extends Headers {
  override set(): never {
    throw new Error('read-only headers');
  }
  override append(): never {
    throw new Error('read-only headers');
  }
  override delete(): never {
    throw new Error('read-only headers');
  }
}
// Building a Headers object per request cost more than the rest of a fetch.
const SHARED_HEADERS = new ReadOnlyHeaders(BASE_HEADERS);

/**
 * A JSON answer of the API. An h3 HTTPResponse, so h3 sends the string straight to Node's
 * response instead of going through a web Response body stream.
 */
export class JsonReply extends HTTPResponse {
  readonly #headers: Headers;
  constructor(body: string, readonly code: number, extra?: Record<string, string>) {
    super(body, { status: code });
    this.#headers = extra ? new Headers({ ...BASE_HEADERS, ...extra }) : SHARED_HEADERS;
  }
  override get headers(): Headers {
    return this.#headers;
  }
}

export const jsonReply = (body: unknown, status = 200, extra?: Record<string, string>): JsonReply => new JsonReply(stringifyJson(body), status, extra);

/** `{detail, code[, errors]}`; anything that is not a PaydError becomes a bare INTERNAL with no details. */
export function errorReply(err: unknown): JsonReply {
  const e = err instanceof PaydError ? err : new PaydError('INTERNAL', 'internal error');
  let headers: Record<string, string> | undefined;
  if (e.retryAfter !== undefined) headers = { 'retry-after': String(e.retryAfter) };
  // The rest of an oversized body is never read, so this connection cannot carry another request.
  if (e.code === 'PAYLOAD_TOO_LARGE') headers = { connection: 'close' };
  return jsonReply({ detail: e.message, code: e.code, errors: e.errors }, HTTP_STATUS[e.code], headers);
}

/** The closed set of failure codes. HTTP status and CLI exit code are mapped at the edges. */
export const ERROR_CODES = [
  'AUTH_INVALID_HEADERS',
  'AUTH_INVALID_SECRET',
  'INVALID_REQUEST',
  'METHOD_UNSUPPORTED',
  'AMOUNT_OUT_OF_RANGE',
  'ORDER_ID_CONFLICT',
  'INTENT_NOT_FOUND',
  'INTENT_NOT_CANCELABLE',
  'PAYMENT_NOT_ACCEPTABLE',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'AMOUNT_UNAVAILABLE',
  'RATE_UNAVAILABLE',
  'PRICING_NOT_CONFIGURED',
  'BUSY',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'FORBIDDEN',
  'CONFLICT',
  'CONFIG_INVALID',
  'UPSTREAM',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldError {
  field: string;
  message: string;
}

export class PaydError extends Error {
  readonly code: ErrorCode;
  readonly errors?: FieldError[];
  /** Seconds the caller should wait (RATE_LIMITED, BUSY, AMOUNT_UNAVAILABLE, RATE_UNAVAILABLE). */
  readonly retryAfter?: number;
  /** Retrying will not fix it; the operator must (e.g. a revoked OAuth refresh token): readiness reports it at once. */
  readonly needsOperator?: boolean;

  constructor(code: ErrorCode, message: string, extra: { errors?: FieldError[]; retryAfter?: number; needsOperator?: boolean; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'PaydError';
    this.code = code;
    if (extra.errors) this.errors = extra.errors;
    if (extra.retryAfter !== undefined) this.retryAfter = extra.retryAfter;
    if (extra.needsOperator) this.needsOperator = true;
  }
}

export const isPaydError = (e: unknown): e is PaydError => e instanceof PaydError;

/** One line for a log or a status: the error code (ENOTFOUND…), message and cause's message. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${code ? code + ' ' : ''}${err.message}${cause}`;
  }
  return String(err);
}

/**
 * A network failure in an operator's words (the system code kept in brackets, for searching),
 * or null when `text` names none: "getaddrinfo ENOTFOUND api.example.com" → "the name
 * api.example.com could not be looked up (DNS: ENOTFOUND)".
 */
export function networkWords(text: string): string | null {
  const host = (code: string) => new RegExp(`${code} ([^\\s,)]+)`).exec(text)?.[1];
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) {
    const code = /EAI_AGAIN/.test(text) ? 'EAI_AGAIN' : 'ENOTFOUND';
    const name = host(code);
    return `the name ${name ?? '(unknown)'} could not be looked up (DNS: ${code}${code === 'EAI_AGAIN' ? ', the resolver did not answer' : ', no such host'})`;
  }
  if (/ECONNREFUSED/.test(text)) return `nothing accepts connections at ${host('ECONNREFUSED') ?? 'that address'} (ECONNREFUSED)`;
  if (/ECONNRESET|socket hang up/.test(text)) return 'the connection was dropped before an answer (ECONNRESET)';
  if (/ETIMEDOUT|timed out|TimeoutError|aborted due to timeout/i.test(text)) return 'no answer in time (timed out)';
  if (/EHOSTUNREACH|ENETUNREACH/.test(text)) return 'the network has no route to it (unreachable)';
  if (/CERT|certificate|SSL|TLS/i.test(text)) return `the TLS handshake failed (${text.slice(0, 80)})`;
  return null;
}

import { parseRate, type RateSourceName } from '../domain/rates.ts';
import { BodyTooLargeError, readBoundedText } from '../runtime/bounded-body.ts';

/** One rate as a source gave it: exact (scaled bigint), with the source's own time when it sends one. */
export interface RateReading {
  rate: bigint;
  /** The source's timestamp of the rate, ms; absent when it sends none. */
  sourceAt?: number;
}

/**
 * A public price source (one file per source under sources/). `fetch` makes exactly one HTTP
 * request for one pair ("USDT/INR": INR per USDT) and throws RateSourceError on anything but a
 * usable positive rate, including errors a source wraps in an HTTP 200.
 */
export interface RateSource {
  name: RateSourceName;
  supports(pair: string): boolean;
  fetch(pair: string, signal: AbortSignal): Promise<RateReading>;
}

export class RateSourceError extends Error {
  /** Seconds the source asked us to wait (429/418 Retry-After), when it said so. */
  readonly retryAfter?: number;
  constructor(message: string, retryAfter?: number) {
    super(message);
    this.name = 'RateSourceError';
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

export type FetchFn = typeof fetch;

/** What every source is built with: the HTTP client, its base URL, and an optional key. */
export interface SourceOptions {
  fetch: FetchFn;
  baseUrl: string;
  apiKey?: () => string;
}

/** Answers larger than this are refused (CoinDCX's ticker of every market is ~300 kB). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * GET `url` and parse its JSON. A non-2xx answer throws with the source's own error text
 * (`describe` reads it from the body), and a rate-limit answer carries its Retry-After.
 */
export async function getJson(options: SourceOptions, url: string, signal: AbortSignal, init: { headers?: Record<string, string>; describe?: (body: unknown) => string | undefined } = {}): Promise<unknown> {
  const res = await options.fetch(url, { headers: { accept: 'application/json', ...init.headers }, signal, redirect: 'error' });
  const text = await readBoundedText(res, MAX_BODY_BYTES).catch((err: unknown) => {
    throw err instanceof BodyTooLargeError ? new RateSourceError(err.message) : err;
  });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const ra = Number(res.headers.get('retry-after'));
    const why = (body !== undefined && init.describe?.(body)) || text.slice(0, 120).replace(/\s+/g, ' ');
    throw new RateSourceError(`HTTP ${res.status}: ${why}`, Number.isFinite(ra) && ra > 0 ? ra : res.status === 429 || res.status === 418 ? 60 : undefined);
  }
  if (body === undefined) throw new RateSourceError(`HTTP ${res.status} but not JSON: ${text.slice(0, 60).replace(/\s+/g, ' ')}`);
  return body;
}

/** A pair's two currencies. */
export const splitPair = (pair: string): [string, string] => pair.split('/') as [string, string];

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rate in `raw`, or a source failure: zero, negative, non-numeric and missing are never rates. */
export function rateOrFail(raw: unknown, what: string): bigint {
  const r = parseRate(raw);
  if (r === null) throw new RateSourceError(`${what} is not a positive decimal rate: ${JSON.stringify(raw)?.slice(0, 40)}`);
  return r;
}

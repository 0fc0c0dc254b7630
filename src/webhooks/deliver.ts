import { describeError } from '../domain/errors.ts';

export interface AttemptResult {
  /** HTTP status, or null when no response came (timeout, refused, reset). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Set when shutdown cut the attempt off: the event is retried, not counted as the merchant's failure. */
  cutOff?: boolean;
}

/** `signal` (optional) cuts the POST off early: shutdown. */
export type HttpPost = (url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal) => Promise<{ statusCode: number }>;

export async function attemptDelivery(post: HttpPost, url: string, headers: Record<string, string>, body: string, timeoutMs: number, now: () => number, cut?: AbortSignal): Promise<AttemptResult> {
  const started = now();
  try {
    const { statusCode } = await post(url, headers, body, timeoutMs, cut);
    const ok = statusCode >= 200 && statusCode < 300;
    return { statusCode, error: ok ? null : `HTTP ${statusCode}`, durationMs: now() - started };
  } catch (err) {
    if (cut?.aborted) return { statusCode: null, error: 'cut off by shutdown; will retry', durationMs: now() - started, cutOff: true };
    // Our wall-clock signal and undici's own header/body timers race for the same deadline: all are "timed out".
    const code = (err as NodeJS.ErrnoException).code;
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
    return { statusCode: null, error: timedOut ? `timed out after ${timeoutMs} ms` : describeError(err), durationMs: now() - started };
  }
}

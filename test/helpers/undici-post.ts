import { request } from 'undici';
import type { HttpPost } from '../../src/webhooks/deliver.ts';

/**
 * A webhook POST WITHOUT the daemon's address check (webhooks/target.ts): tests that point the
 * dispatcher at a loopback receiver use it. A wall-clock timeout; redirects are not followed and
 * the response body is always drained, like the real poster.
 */
export const undiciPost: HttpPost = async (url, headers, body, timeoutMs, cut) => {
  const signal = cut ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cut]) : AbortSignal.timeout(timeoutMs);
  const res = await request(url, { method: 'POST', headers, body, signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  await res.body.dump({ limit: 64 * 1024, signal }).catch(() => {});
  return { statusCode: res.statusCode };
};

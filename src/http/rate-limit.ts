import { isIPv6 } from 'node:net';
import type { Clock } from '../domain/ports.ts';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token bucket per key: `perSecond` refill, `burst` capacity. perSecond 0 disables it.
 * Memory is bounded by `maxKeys`: when full, buckets that have refilled (idle keys) are
 * dropped first, then the oldest, so a flood of fresh keys cannot grow it without end.
 */
export function createRateLimiter(options: { perSecond: number; burst: number; clock: Clock; maxKeys?: number }) {
  const buckets = new Map<string, Bucket>();
  const maxKeys = options.maxKeys ?? 10_000;

  const evict = (now: number) => {
    for (const [key, b] of buckets) if (b.tokens + ((now - b.at) / 1000) * options.perSecond >= options.burst) buckets.delete(key);
    if (buckets.size < maxKeys) return;
    let drop = Math.max(1, Math.floor(maxKeys / 10));
    for (const key of buckets.keys()) {
      if (drop-- <= 0) break;
      buckets.delete(key);
    }
  };

  return {
    /** Returns 0 when allowed, else the whole seconds to wait. */
    take(key: string): number {
      if (options.perSecond <= 0) return 0;
      const now = options.clock.now();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) evict(now);
        b = { tokens: options.burst, at: now };
        buckets.set(key, b);
      }
      b.tokens = Math.min(options.burst, b.tokens + ((now - b.at) / 1000) * options.perSecond);
      b.at = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / options.perSecond));
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * The key anonymous traffic is limited by: the peer's IP, IPv6 by its /64 (one host
 * usually owns a whole /64, so per-address keys would give it 2^64 buckets).
 */
export function clientKey(address: string | undefined): string {
  if (!address) return '';
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

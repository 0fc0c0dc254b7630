import type { Clock } from '../domain/ports.ts';

/** Token bucket per key: `perSecond` refill, `burst` capacity. perSecond 0 disables it. */
export function createRateLimiter(o: { perSecond: number; burst: number; clock: Clock; maxKeys?: number }) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const maxKeys = o.maxKeys ?? 10_000;
  return {
    /** Returns 0 when allowed, else the seconds to wait. */
    take(key: string): number {
      if (o.perSecond <= 0) return 0;
      const now = o.clock.now();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) buckets.clear(); // bounded memory; only ever keyed by authenticated clients
        b = { tokens: o.burst, at: now };
        buckets.set(key, b);
      }
      b.tokens = Math.min(o.burst, b.tokens + ((now - b.at) / 1000) * o.perSecond);
      b.at = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / o.perSecond));
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';

/** Counts requests per key in fixed one-second windows. */
export interface RateLimitStore {
  /** Records one request in the window and returns how many the window has seen so far. */
  hit(key: string, windowStartMs: number, windowMs: number): Promise<number>;
  close(): Promise<void>;
}

export function memoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return {
    async hit(key, windowStartMs) {
      // Drop windows that ended long ago, at most once per window, so idle tokens do not pile up.
      if (windowStartMs !== lastSweep && windows.size > 10_000) {
        for (const [storedKey, window] of windows) if (window.start < windowStartMs) windows.delete(storedKey);
        lastSweep = windowStartMs;
      }
      const window = windows.get(key);
      if (window === undefined || window.start !== windowStartMs) {
        windows.set(key, { start: windowStartMs, count: 1 });
        return 1;
      }
      window.count += 1;
      return window.count;
    },
    async close() {},
  };
}

/** Windows shared by every instance that talks to the same Redis under the same prefix. */
export function redisRateLimitStore(redis: Redis, prefix: string): RateLimitStore {
  return {
    async hit(key, windowStartMs, windowMs) {
      const redisKey = `${prefix}rl:${key}:${windowStartMs}`;
      const results = await redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, windowMs * 2)
        .exec();
      const [error, count] = results?.[0] ?? [new Error('rate limit: no reply from Redis'), 0];
      if (error) throw error;
      return Number(count);
    },
    async close() {},
  };
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the budget is whole again. */
  resetSeconds: number;
}

export function createRateLimiter(store: RateLimitStore, limitPerSecond: number, clock: Clock) {
  const windowMs = 1000;
  return async (key: string): Promise<RateLimitDecision> => {
    const now = clock.now();
    const windowStart = now - (now % windowMs);
    const count = await store.hit(key, windowStart, windowMs);
    return {
      allowed: count <= limitPerSecond,
      limit: limitPerSecond,
      remaining: Math.max(0, limitPerSecond - count),
      resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
    };
  };
}

import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { DependencyMonitor } from './dependencies.ts';

/**
 * Redis holds state that instances share (rate-limit windows, sign-in failures, what a page has
 * shown, frequency counts), and every one of them has an in-process twin that a single instance
 * uses without Redis. While Redis is away or slow, a request must not wait for it: each call is
 * bounded (REDIS_TIMEOUT_MS, tens of milliseconds) and answered from the twin when Redis does
 * not answer in time, counted per store (`nativa_redis_fallbacks_total`). The price is that
 * counting is per instance while Redis is away (docs/operating.md).
 */
export class RedisGuard {
  readonly redis: Redis;
  private readonly monitor: DependencyMonitor;
  private readonly boundMs: number;

  constructor(redis: Redis, monitor: DependencyMonitor, boundMs: number) {
    this.redis = redis;
    this.monitor = monitor;
    this.boundMs = boundMs;
  }

  /**
   * A store whose every method asks `shared` (Redis) first, within the bound, and `local` when
   * Redis is not connected, fails, or has not answered in time. Without a connection the local
   * answer comes at once: a synchronous store stays synchronous.
   */
  share<T extends object>(store: string, shared: T, local: T): T {
    const guarded: Record<string, unknown> = {};
    for (const [name, localMethod] of Object.entries(local)) {
      const sharedMethod = (shared as Record<string, unknown>)[name];
      if (typeof localMethod !== 'function' || typeof sharedMethod !== 'function') continue;
      guarded[name] = (...args: unknown[]) =>
        this.bounded(
          store,
          () => sharedMethod.apply(shared, args),
          () => localMethod.apply(local, args),
        );
    }
    return guarded as T;
  }

  private bounded(store: string, ask: () => unknown, fallback: () => unknown): unknown {
    if (this.redis.status !== 'ready') {
      this.monitor.fellBack(store);
      return fallback();
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      const fall = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.monitor.fellBack(store);
        try {
          resolve(fallback());
        } catch (error) {
          reject(error);
        }
      };
      const timer = setTimeout(fall, this.boundMs);
      Promise.resolve()
        .then(ask)
        .then((value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(value);
        }, fall);
    });
  }
}

/** The Redis-backed store when instances share a Redis, else the in-process one. */
export function sharedOrLocal<T extends object>(
  guard: RedisGuard | undefined,
  store: string,
  shared: (redis: Redis) => T,
  local: () => T,
): T {
  return guard === undefined ? local() : guard.share(store, shared(guard.redis), local());
}

/**
 * The Redis client of an instance. Commands are never queued while the connection is down
 * (no offline queue, no retries of a command): they fail at once and the guard answers from
 * memory. Reconnection is tried at most every second, so the instance uses Redis again within
 * about a second of its return. Lost connections are logged and counted, never thrown.
 */
export function connectRedis(url: string, monitor: DependencyMonitor): Redis {
  // Loaded only when REDIS_URL is set: an instance without Redis does not keep the client's code in memory.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new RedisClient(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Calls outside the guard (readiness, revocation notices) still end within a second.
    commandTimeout: 1000,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  redis.on('error', (error: Error) => monitor.failed('redis', error));
  redis.on('reconnecting', () => monitor.failed('redis', new Error('connection lost, reconnecting')));
  redis.on('ready', () => monitor.restored('redis'));
  return redis;
}

/** Waits up to `ms` for the first connection; without it the instance starts on in-process state. */
export async function firstConnection(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}

/**
 * Closes a client: QUIT when connected (the replies in flight arrive first), and in any case no
 * more reconnection attempts (without an offline queue, QUIT on a lost connection is refused).
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => undefined);
  redis.disconnect();
}

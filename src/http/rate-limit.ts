import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';

/**
 * Sliding-window counters (docs/adr/0004): each key counts the requests it was granted in the
 * current fixed window and in the one before. A request is granted while
 * `previous × (share of the previous window still inside the last second) + current + 1 ≤ limit`,
 * so a client can no longer spend its budget at the end of one window and again at the start of
 * the next. Only granted requests count: a client that keeps sending past its limit is refused
 * only for what it sends too much, not locked out.
 */
export interface WindowCounts {
  granted: boolean;
  /** Requests granted in the previous window. */
  previous: number;
  /** Requests granted in the current window, this one included when granted. */
  current: number;
}

export interface RateLimitStore {
  /**
   * Atomically: grants one request when the weighted count leaves room under `limit`, and counts
   * it in the window starting at `windowStartMs`. `previousShareMs` is how much of the previous
   * window is still inside the last `windowMs` (the weights are kept in integer milliseconds, so
   * the decision is exact). A store that answers from memory answers at once, without a promise:
   * it runs for every authenticated request.
   */
  take(
    key: string,
    windowStartMs: number,
    windowMs: number,
    previousShareMs: number,
    limit: number,
  ): WindowCounts | Promise<WindowCounts>;
  close(): Promise<void>;
}

const admits = (previous: number, previousShareMs: number, current: number, windowMs: number, limit: number) =>
  previous * previousShareMs + (current + 1) * windowMs <= limit * windowMs;

/**
 * Counters in process memory: one entry per key that was seen in the last two windows, updated in
 * place, so a request costs O(1); entries older than that are swept once per window (only when
 * there are many), which keeps memory bounded by the keys active in the last two seconds.
 */
export function memoryRateLimitStore(): RateLimitStore {
  const counters = new Map<string, { start: number; previous: number; current: number }>();
  let lastSweep = 0;
  return {
    take(key, windowStartMs, windowMs, previousShareMs, limit) {
      if (windowStartMs !== lastSweep && counters.size > 10_000) {
        for (const [storedKey, counter] of counters) if (counter.start < windowStartMs - windowMs) counters.delete(storedKey);
        lastSweep = windowStartMs;
      }
      let counter = counters.get(key);
      if (counter === undefined) {
        counter = { start: windowStartMs, previous: 0, current: 0 };
        counters.set(key, counter);
      } else if (counter.start !== windowStartMs) {
        counter.previous = counter.start === windowStartMs - windowMs ? counter.current : 0;
        counter.current = 0;
        counter.start = windowStartMs;
      }
      const granted = admits(counter.previous, previousShareMs, counter.current, windowMs, limit);
      if (granted) counter.current += 1;
      return { granted, previous: counter.previous, current: counter.current };
    },
    async close() {},
  };
}

/**
 * The decision in one Lua script, so it is atomic across instances and one round trip (EVALSHA).
 * Both windows of a key share a hash tag, so they live in one slot of a Redis cluster too.
 */
const TAKE_SCRIPT = `
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local share = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
if previous * share + (current + 1) * window <= limit * window then
  current = redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], window * 2)
  return {1, previous, current}
end
return {0, previous, current}
`;

type TakeCommand = (current: string, previous: string, shareMs: number, windowMs: number, limit: number) => Promise<unknown>;

/** Counters shared by every instance that talks to the same Redis under the same prefix. */
export function redisRateLimitStore(redis: Redis, prefix: string): RateLimitStore {
  redis.defineCommand('nativaRateLimitTake', { numberOfKeys: 2, lua: TAKE_SCRIPT });
  const takeCommand = (redis as unknown as { nativaRateLimitTake: TakeCommand }).nativaRateLimitTake.bind(redis);
  return {
    async take(key, windowStartMs, windowMs, previousShareMs, limit) {
      // The counter expires after two windows: during the next one it is read as the previous.
      const reply = await takeCommand(
        `${prefix}rl:{${key}}:${windowStartMs}`,
        `${prefix}rl:{${key}}:${windowStartMs - windowMs}`,
        previousShareMs,
        windowMs,
        limit,
      );
      if (!Array.isArray(reply) || reply.length !== 3) throw new Error('rate limit: unexpected reply from Redis');
      return { granted: Number(reply[0]) === 1, previous: Number(reply[1]), current: Number(reply[2]) };
    },
    async close() {},
  };
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the whole budget is available again (X-Rate-Limit-Reset). */
  resetSeconds: number;
  /** Seconds until one more request would be granted (Retry-After of a 429). */
  retryAfterSeconds: number;
}

const WINDOW_MS = 1000;

/**
 * Milliseconds from `elapsed` into the current window until one more request fits under `limit`,
 * given what was granted in the previous and the current window (nothing more being granted meanwhile).
 */
export function waitForRoom(previous: number, current: number, elapsed: number, limit: number, windowMs = WINDOW_MS): number {
  const room = limit - 1;
  if (current <= room) {
    // Still in this window, once enough of the previous window has slid out.
    const needed = previous === 0 ? 0 : windowMs * (1 - (room - current) / previous);
    if (needed <= elapsed) return 0;
    if (needed < windowMs) return needed - elapsed;
  }
  // In the next window, this window's count becomes the previous one and slides out in turn.
  const needed = current <= room ? 0 : windowMs * (1 - room / current);
  return windowMs - elapsed + needed;
}

/** Decides one request of `key`: at once with a memory store, through a promise with Redis. */
export type RateLimiter = (key: string) => RateLimitDecision | Promise<RateLimitDecision>;

export function createRateLimiter(store: RateLimitStore, limitPerSecond: number, clock: Clock): RateLimiter {
  return (key) => {
    const now = clock.now();
    const elapsed = now % WINDOW_MS;
    const windowStart = now - elapsed;
    const previousShareMs = WINDOW_MS - elapsed;
    const counts = store.take(key, windowStart, WINDOW_MS, previousShareMs, limitPerSecond);
    return counts instanceof Promise
      ? counts.then((settled) => decide(settled, elapsed, previousShareMs, limitPerSecond))
      : decide(counts, elapsed, previousShareMs, limitPerSecond);
  };
}

function decide(counts: WindowCounts, elapsed: number, previousShareMs: number, limitPerSecond: number): RateLimitDecision {
  const usedMs = counts.previous * previousShareMs + counts.current * WINDOW_MS;
  // The budget is whole once nothing granted weighs any more: this window's requests weigh until
  // the end of the next one, the previous window's until the end of this one.
  const wholeInMs = counts.current > 0 ? 2 * WINDOW_MS - elapsed : counts.previous > 0 ? WINDOW_MS - elapsed : 0;
  return {
    allowed: counts.granted,
    limit: limitPerSecond,
    remaining: Math.max(0, Math.floor((limitPerSecond * WINDOW_MS - usedMs) / WINDOW_MS)),
    resetSeconds: Math.ceil(wholeInMs / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(waitForRoom(counts.previous, counts.current, elapsed, limitPerSecond) / 1000)),
  };
}

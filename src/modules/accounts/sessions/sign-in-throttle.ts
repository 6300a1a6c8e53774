import type { Redis } from 'ioredis';
import type { Clock } from '../../../clock.ts';

/** Failed sign-ins allowed per window, per account (or unknown login) and per client address. */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 };

/** Counts failures per key in fixed windows; kept in Redis when instances share one, else in memory. */
export interface FailureCounter {
  count(key: string, windowStartMs: number): Promise<number>;
  add(key: string, windowStartMs: number, windowMs: number): Promise<void>;
}

export function memoryFailureCounter(): FailureCounter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async count(key, windowStartMs) {
      const window = windows.get(key);
      return window !== undefined && window.start === windowStartMs ? window.count : 0;
    },
    async add(key, windowStartMs) {
      if (windows.size > 50_000) {
        for (const [stored, window] of windows) if (window.start < windowStartMs) windows.delete(stored);
      }
      const window = windows.get(key);
      if (window === undefined || window.start !== windowStartMs) windows.set(key, { start: windowStartMs, count: 1 });
      else window.count += 1;
    },
  };
}

export function redisFailureCounter(redis: Redis, prefix: string): FailureCounter {
  const redisKey = (key: string, windowStartMs: number) => `${prefix}signin:${key}:${windowStartMs}`;
  return {
    async count(key, windowStartMs) {
      return Number((await redis.get(redisKey(key, windowStartMs))) ?? 0);
    },
    async add(key, windowStartMs, windowMs) {
      await redis
        .multi()
        .incr(redisKey(key, windowStartMs))
        .pexpire(redisKey(key, windowStartMs), windowMs * 2)
        .exec();
    },
  };
}

/**
 * Throttles password guessing: once an account (or a login that names no account, so that the
 * answer does not reveal which exist) or an address has used up its failures in the current
 * window, sign-in answers 429 until the window ends, whatever the password.
 */
export class SignInThrottle {
  private readonly counter: FailureCounter;
  private readonly clock: Clock;

  constructor(counter: FailureCounter, clock: Clock) {
    this.counter = counter;
    this.clock = clock;
  }

  private window(): { start: number; retryAfterSeconds: number } {
    const now = this.clock.now();
    const start = now - (now % SIGN_IN_LIMITS.windowMs);
    return { start, retryAfterSeconds: Math.max(1, Math.ceil((start + SIGN_IN_LIMITS.windowMs - now) / 1000)) };
  }

  /** Seconds to wait when either key is out of attempts, else undefined. */
  async blocked(accountKey: string, address: string): Promise<number | undefined> {
    const { start, retryAfterSeconds } = this.window();
    const [account, fromAddress] = await Promise.all([
      this.counter.count(`a:${accountKey}`, start),
      this.counter.count(`ip:${address}`, start),
    ]);
    return account >= SIGN_IN_LIMITS.perAccount || fromAddress >= SIGN_IN_LIMITS.perAddress ? retryAfterSeconds : undefined;
  }

  async failed(accountKey: string, address: string): Promise<void> {
    const { start } = this.window();
    await Promise.all([
      this.counter.add(`a:${accountKey}`, start, SIGN_IN_LIMITS.windowMs),
      this.counter.add(`ip:${address}`, start, SIGN_IN_LIMITS.windowMs),
    ]);
  }
}

/** Password-reset requests allowed per window, per account and per client address. */
export const RESET_LIMITS = { perAccount: 3, perAddress: 10, windowMs: 60 * 60_000 };

/**
 * Limits password-reset e-mails, in the sign-in throttle's store: every request counts against its
 * address, and one that names an account against that account too (by id, so its username and
 * its e-mail share one count). A request over either limit sends nothing but is answered like any
 * other, so the limit tells nothing about which accounts exist.
 */
export class ResetThrottle {
  private readonly counter: FailureCounter;
  private readonly clock: Clock;

  constructor(counter: FailureCounter, clock: Clock) {
    this.counter = counter;
    this.clock = clock;
  }

  /** Counts one request; true when it is within both limits and may send its e-mail. */
  async allow(address: string, accountId: number | undefined): Promise<boolean> {
    const now = this.clock.now();
    const start = now - (now % RESET_LIMITS.windowMs);
    const keys = [`reset-ip:${address}`, ...(accountId === undefined ? [] : [`reset-a:${accountId}`])];
    const [fromAddress = 0, forAccount = 0] = await Promise.all(keys.map((key) => this.counter.count(key, start)));
    await Promise.all(keys.map((key) => this.counter.add(key, start, RESET_LIMITS.windowMs)));
    return fromAddress < RESET_LIMITS.perAddress && forAccount < RESET_LIMITS.perAccount;
  }
}

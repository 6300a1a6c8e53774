import type { Redis } from 'ioredis';
import type { Clock } from '../../../clock.ts';

/** Failed sign-ins allowed per window, per account (or unknown login) and per client address. */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 };

/**
 * Counts attempts per key in fixed windows; kept in Redis when instances share one, else in
 * memory. `add` counts one and answers the new count in one step (INCR), so parallel attempts
 * each see a different count and no two pass on the same free place.
 */
export interface FailureCounter {
  add(key: string, windowStartMs: number, windowMs: number): Promise<number>;
  /** Takes back one attempt `add` counted in that window (it succeeded, or was refused unseen). */
  remove(key: string, windowStartMs: number): Promise<void>;
}

export function memoryFailureCounter(): FailureCounter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async add(key, windowStartMs) {
      if (windows.size > 50_000) {
        for (const [stored, window] of windows) if (window.start < windowStartMs) windows.delete(stored);
      }
      const window = windows.get(key);
      if (window === undefined || window.start !== windowStartMs) {
        windows.set(key, { start: windowStartMs, count: 1 });
        return 1;
      }
      window.count += 1;
      return window.count;
    },
    async remove(key, windowStartMs) {
      const window = windows.get(key);
      if (window !== undefined && window.start === windowStartMs && window.count > 0) window.count -= 1;
    },
  };
}

export function redisFailureCounter(redis: Redis, prefix: string): FailureCounter {
  const redisKey = (key: string, windowStartMs: number) => `${prefix}signin:${key}:${windowStartMs}`;
  return {
    async add(key, windowStartMs, windowMs) {
      const replies = await redis
        .multi()
        .incr(redisKey(key, windowStartMs))
        .pexpire(redisKey(key, windowStartMs), windowMs * 2)
        .exec();
      const [error, count] = replies?.[0] ?? [new Error('sign-in counter: no reply from Redis'), 0];
      if (error) throw error;
      return Number(count);
    },
    async remove(key, windowStartMs) {
      await redis.decr(redisKey(key, windowStartMs));
    },
  };
}

/** An attempt counted before its check: refused at once, or to be settled when its check is done. */
export type SignInAttempt = { refused: true; retryAfterSeconds: number } | { refused: false; succeeded(): Promise<void> };

/**
 * Throttles password guessing: each attempt is counted, per account (or a login that names no
 * account, so that the answer does not reveal which exist) and per address, before its password
 * or code is checked; once either count passes its limit in the current window, sign-in answers
 * 429 until the window ends, whatever the password. A refused attempt and a successful one are
 * taken back, so the counts are the failures; parallel guesses cannot all pass a check made
 * before the first of them failed.
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

  /** Counts an attempt before its check; a failed check leaves it counted. */
  async attempt(accountKey: string, address: string): Promise<SignInAttempt> {
    const { start, retryAfterSeconds } = this.window();
    const keys = [`a:${accountKey}`, `ip:${address}`];
    const [account = 0, fromAddress = 0] = await Promise.all(
      keys.map((key) => this.counter.add(key, start, SIGN_IN_LIMITS.windowMs)),
    );
    const release = async () => {
      await Promise.all(keys.map((key) => this.counter.remove(key, start)));
    };
    if (account > SIGN_IN_LIMITS.perAccount || fromAddress > SIGN_IN_LIMITS.perAddress) {
      await release();
      return { refused: true, retryAfterSeconds };
    }
    return { refused: false, succeeded: release };
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
    const [fromAddress = 0, forAccount = 0] = await Promise.all(
      keys.map((key) => this.counter.add(key, start, RESET_LIMITS.windowMs)),
    );
    return fromAddress <= RESET_LIMITS.perAddress && forAccount <= RESET_LIMITS.perAccount;
  }
}

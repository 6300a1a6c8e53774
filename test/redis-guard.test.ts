import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { DependencyMonitor } from '../src/dependencies.ts';
import { connectRedis, firstConnection, RedisGuard } from '../src/redis-guard.ts';
import { freePort } from './helpers/network.ts';
import { redisUnreachable, TEST_REDIS_URL } from './helpers/redis.ts';

/** A store with the shape the guard wraps: one synchronous method, one asynchronous. */
interface Counter {
  peek(key: string): number | Promise<number>;
  add(key: string): Promise<void>;
}

function localCounter(): Counter {
  const counts = new Map<string, number>();
  return {
    peek: (key) => counts.get(key) ?? 0,
    async add(key) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
  };
}

function redisCounter(redis: Redis, prefix: string, options: { slowMs?: number; failing?: boolean } = {}): Counter {
  return {
    async peek(key) {
      // BLPOP on a list nobody pushes to: a real Redis that takes `slowMs` to answer.
      if (options.slowMs !== undefined) await redis.blpop(`${prefix}never`, options.slowMs / 1000);
      // HGET on a string key: a command Redis refuses.
      if (options.failing) await redis.hget(`${prefix}${key}`, 'field');
      return Number((await redis.get(`${prefix}${key}`)) ?? 0);
    },
    async add(key) {
      await redis.incr(`${prefix}${key}`);
    },
  };
}

const silent = { warn: () => undefined, info: () => undefined };

describe('RedisGuard without a Redis', () => {
  it('answers from in-process state at once, synchronously, and counts each fallback', async () => {
    const monitor = new DependencyMonitor(() => 0, silent);
    // Nothing listens on this port: the client never becomes ready.
    const redis = connectRedis(`redis://127.0.0.1:${await freePort()}`, monitor);
    try {
      const guard = new RedisGuard(redis, monitor, 20);
      const counter = guard.share('counter', redisCounter(redis, 'x:'), localCounter());
      await counter.add('a');
      await counter.add('a');
      assert.equal(counter.peek('a'), 2, 'a synchronous store stays synchronous');
      assert.equal(monitor.counts.fallbacks.counter, 3);
    } finally {
      redis.disconnect();
    }
  });
});

describe('RedisGuard with a Redis', () => {
  let unreachable: string | undefined;
  let redis: Redis;
  const monitor = new DependencyMonitor(() => 0, silent);
  const prefix = `nativa-test:${randomBytes(6).toString('hex')}:`;

  before(async () => {
    unreachable = await redisUnreachable(TEST_REDIS_URL);
    if (unreachable !== undefined) return;
    redis = connectRedis(TEST_REDIS_URL, monitor);
    assert.equal(await firstConnection(redis, 5000), true);
  });

  after(async () => {
    if (unreachable !== undefined) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('asks Redis while it answers within the bound', async (t) => {
    if (unreachable !== undefined) return t.skip(`Redis at ${TEST_REDIS_URL} is unreachable (${unreachable})`);
    const guard = new RedisGuard(redis, monitor, 1000);
    const counter = guard.share('fast', redisCounter(redis, prefix), localCounter());
    await counter.add('b');
    await counter.add('b');
    assert.equal(await counter.peek('b'), 2);
    assert.equal(await redis.get(`${prefix}b`), '2', 'counted in Redis');
    assert.equal(monitor.counts.fallbacks.fast, undefined, 'no fallback');
  });

  it('answers from in-process state when Redis is slower than the bound or refuses', async (t) => {
    if (unreachable !== undefined) return t.skip(`Redis at ${TEST_REDIS_URL} is unreachable (${unreachable})`);
    const guard = new RedisGuard(redis, monitor, 30);
    const local = localCounter();
    await local.add('c');
    // Its own connection: the blocked command must not hold up the other cases' commands.
    const blocked = redis.duplicate();
    try {
      await firstConnection(blocked, 5000);
      const slow = guard.share('slow', redisCounter(blocked, prefix, { slowMs: 2000 }), local);
      assert.equal(await slow.peek('c'), 1, 'the in-process answer (Redis would have said 0)');
      assert.equal(monitor.counts.fallbacks.slow, 1);
    } finally {
      blocked.disconnect();
    }

    await redis.set(`${prefix}d`, '5');
    const failing = guard.share('failing', redisCounter(redis, prefix, { failing: true }), localCounter());
    assert.equal(await failing.peek('d'), 0, 'the in-process answer, not an error');
    assert.equal(monitor.counts.fallbacks.failing, 1);
  });
});

import { Redis } from 'ioredis';

/** The Redis the tests that need one talk to. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Why no Redis answers at `url` within a second, or undefined when one does. */
export async function redisUnreachable(url: string): Promise<string | undefined> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    redis.disconnect();
  }
}

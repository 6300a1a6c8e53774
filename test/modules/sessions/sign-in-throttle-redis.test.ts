import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { hashPassword } from '../../../src/modules/advertiser/clients/password.ts';
import { openTestDatabase } from '../../helpers/database.ts';
import { startTestServer } from '../../helpers/server.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether a Redis answers at `url`, within a second. */
async function redisReachable(url: string): Promise<string | undefined> {
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

describe('failed sign-ins counted through Redis', () => {
  it('two instances on one Redis share the failures of an account', async (t) => {
    const problem = await redisReachable(REDIS_URL);
    if (problem !== undefined) {
      t.skip(`Redis at ${REDIS_URL} is unreachable (${problem}); set TEST_REDIS_URL to run this test`);
      return;
    }
    const database = await openTestDatabase();
    const config = { redisUrl: REDIS_URL, redisKeyPrefix: `nativa-test:${randomBytes(6).toString('hex')}:` };
    const first = await startTestServer({ config, database });
    const second = await startTestServer({ config, database });
    try {
      const account = await first.createAccount('advertiser');
      const me = (await account.client.get('/api/me')).json<{ username: string }>();
      await database.db
        .updateTable('accounts')
        .set({ password_hash: await hashPassword('the right password') })
        .where('id', '=', account.id)
        .execute();
      const attempt = (server: typeof first, password: string) =>
        server.anonymous.post('/api/session', { login: me.username, password });
      const statuses: number[] = [];
      for (const server of [first, second, first, second, first]) statuses.push((await attempt(server, 'wrong')).status);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401]);
      const blocked = await attempt(second, 'the right password');
      assert.equal(blocked.status, 429, 'the second instance counts the first one’s failures');
      assert.ok(Number(blocked.header('retry-after')) > 0);
      first.clock.advance(15 * 60_000);
      second.clock.advance(15 * 60_000);
      assert.equal((await attempt(second, 'the right password')).status, 200);
    } finally {
      await second.close();
      await first.close();
      await database.close();
    }
  });
});

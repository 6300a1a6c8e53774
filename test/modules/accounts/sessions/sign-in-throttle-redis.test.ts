import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashPassword } from '../../../../src/modules/accounts/password.ts';
import { openTestDatabase } from '../../../helpers/database.ts';
import { redisUnreachable, TEST_REDIS_URL } from '../../../helpers/redis.ts';
import { startTestServer } from '../../../helpers/server.ts';

const REDIS_URL = TEST_REDIS_URL;

describe('failed sign-ins counted through Redis', () => {
  it('two instances on one Redis share the failures of an account', async (t) => {
    const problem = await redisUnreachable(REDIS_URL);
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
      // Parallel guesses on both instances are counted before they are checked: five pass, no more.
      const parallel = await Promise.all(
        Array.from({ length: 30 }, async (_, index) => (await attempt(index % 2 === 0 ? first : second, 'wrong')).status),
      );
      assert.equal(parallel.filter((status) => status === 401).length, 5);
      assert.equal(parallel.filter((status) => status === 429).length, 25);
    } finally {
      await second.close();
      await first.close();
      await database.close();
    }
  });
});

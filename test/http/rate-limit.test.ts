import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { assertError } from '../helpers/assertions.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { redisUnreachable, TEST_REDIS_URL } from '../helpers/redis.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const REDIS_URL = TEST_REDIS_URL;

describe('rate limit per token (in process)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { rateLimitPerSecond: 5, sessionRateLimitPerSecond: 50 } });
  });
  after(() => server.close());

  it('admits 5 requests in a second, refuses the 6th with 429, admits again once the window has slid', async () => {
    // Each test starts at a whole second of its own, so the previous test's requests weigh nothing.
    server.clock.set(TEST_EPOCH_MS + 10_000);
    const account = await server.createAccount('advertiser');
    server.clock.advance(2000);
    for (let index = 1; index <= 5; index++) {
      const response = await account.client.get('/api/me');
      assert.equal(response.status, 200, `request ${index}`);
      assert.equal(response.header('x-rate-limit-limit'), '5');
      assert.equal(response.header('x-rate-limit-remaining'), String(5 - index));
      // These requests weigh on the budget until the end of the next window.
      assert.equal(response.header('x-rate-limit-reset'), '2');
    }
    const refused = await account.client.get('/api/me');
    assertError(refused, 429, 'json');
    // Room for one more when a fifth of this window has slid out of the last second: 1.2 s.
    assert.equal(refused.header('retry-after'), '2');
    assert.equal(refused.header('x-rate-limit-remaining'), '0');
    server.clock.advance(1000);
    assert.equal((await account.client.get('/api/me')).status, 429, 'the 5 requests are all still inside the last second');
    server.clock.advance(200);
    const next = await account.client.get('/api/me');
    assert.equal(next.status, 200);
    assert.equal(next.header('x-rate-limit-remaining'), '0');
    server.clock.advance(800);
    assert.equal((await account.client.get('/api/me')).header('x-rate-limit-remaining'), '3');
  });

  it("gives a browser session a page-sized budget of its own, apart from the account's tokens", async () => {
    server.clock.set(TEST_EPOCH_MS + 40_000);
    const account = await server.createAccount('advertiser');
    await setPassword(server.server.context.db, account.id);
    const username = (await account.client.get('/api/me')).json<{ username: string }>().username;
    const signedIn = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(signedIn.status, 200, signedIn.text);
    const page = asBrowser(server, sessionOf(signedIn));
    server.clock.advance(2000);
    // A campaign page loads a dozen lists at once, and a person opens a few pages a second.
    const statuses = [];
    for (let index = 0; index < 30; index++) statuses.push((await page('GET', '/api/me')).status);
    assert.deepEqual(new Set(statuses), new Set([200]), 'thirty requests of a session in one second pass');
    const last = await page('GET', '/api/me');
    assert.equal(last.header('x-rate-limit-limit'), '50');
    // The pages used none of the scripts' budget.
    const script = await account.client.get('/api/me');
    assert.equal(script.status, 200);
    assert.ok(Number(script.header('x-rate-limit-remaining')) >= 3, "the token's own budget is nearly whole");
  });

  it('refuses a second burst right across a window boundary (no 2x the limit)', async () => {
    server.clock.set(TEST_EPOCH_MS + 20_000);
    const account = await server.createAccount('advertiser');
    server.clock.advance(2000 + 999);
    for (let index = 0; index < 5; index++) assert.equal((await account.client.get('/api/me')).status, 200);
    server.clock.advance(2);
    const across = [];
    for (let index = 0; index < 5; index++) across.push((await account.client.get('/api/me')).status);
    assert.deepEqual(across, [429, 429, 429, 429, 429]);
    // Halfway through the next window, half of the burst has slid out: room for two more.
    server.clock.advance(499);
    const half = [];
    for (let index = 0; index < 3; index++) half.push((await account.client.get('/api/me')).status);
    assert.deepEqual(half, [200, 200, 429]);
  });

  it('counts each token on its own, even of one account', async () => {
    server.clock.set(TEST_EPOCH_MS + 30_000);
    const account = await server.createAccount('advertiser');
    const second = (await server.operator.post(`/api/admin/users/${account.id}/tokens`, {})).json().token;
    server.clock.advance(2000);
    for (let index = 0; index < 5; index++) assert.equal((await account.client.get('/api/me')).status, 200);
    assert.equal((await account.client.get('/api/me')).status, 429);
    assert.equal((await server.anonymous.get('/api/me', { token: second })).status, 200);
  });

  it('a refused request still costs nothing else: a 429 on a write writes nothing', async () => {
    server.clock.set(TEST_EPOCH_MS + 40_000);
    const operatorToken = server.operator.defaultToken ?? '';
    const account = await server.createAccount('advertiser');
    server.clock.advance(2000);
    for (let index = 0; index < 5; index++)
      assert.equal((await server.operator.get(`/api/admin/users/${account.id}`)).status, 200);
    const refused = await server.anonymous.post(
      `/api/admin/users/${account.id}/balance`,
      { amount: 5, comment: 'over the limit' },
      { token: operatorToken },
    );
    assertError(refused, 429, 'json');
    server.clock.advance(2000);
    assert.equal((await server.operator.get(`/api/admin/users/${account.id}`)).json().balance, 0);
  });
});

describe('rate limit shared through Redis', () => {
  it('two instances on one Redis share one budget per token', async (t) => {
    const problem = await redisUnreachable(REDIS_URL);
    if (problem !== undefined) {
      t.skip(`Redis at ${REDIS_URL} is unreachable (${problem}); set TEST_REDIS_URL to run this test`);
      return;
    }
    const database = await openTestDatabase();
    const config = {
      rateLimitPerSecond: 5,
      redisUrl: REDIS_URL,
      redisKeyPrefix: `nativa-test:${randomBytes(6).toString('hex')}:`,
    };
    const first = await startTestServer({ config, database });
    // The second instance does not see the first one's write counter, as if it ran in another
    // process: what it learns about revocations comes through Redis.
    const second = await startTestServer({ config, database: { ...database, writeGeneration: undefined } });
    try {
      const account = await first.createAccount('advertiser');
      const onSecond = second.anonymous.as(account.token);
      first.clock.advance(2000);
      second.clock.advance(2000);
      for (const client of [account.client, onSecond, account.client, onSecond, account.client]) {
        assert.equal((await client.get('/api/me')).status, 200);
      }
      const refusedOnSecond = await onSecond.get('/api/me', { accept: 'application/xml' });
      assertError(refusedOnSecond, 429, 'xml');
      assert.equal(refusedOnSecond.header('retry-after'), '2');
      assert.equal((await account.client.get('/api/me')).status, 429);
      first.clock.advance(2000);
      second.clock.advance(2000);
      assert.equal((await onSecond.get('/api/me')).status, 200);
      assert.equal((await account.client.get('/api/me')).header('x-rate-limit-remaining'), '3');

      // Across a window boundary the two instances together grant no second burst.
      for (const server of [first, second]) server.clock.advance(2000 + 999 - (server.clock.now() % 1000));
      const burst = [];
      for (const client of [account.client, onSecond, account.client, onSecond, account.client])
        burst.push((await client.get('/api/me')).status);
      assert.deepEqual(burst, [200, 200, 200, 200, 200]);
      first.clock.advance(2);
      second.clock.advance(2);
      const across = [];
      for (const client of [onSecond, account.client, onSecond, account.client, onSecond])
        across.push((await client.get('/api/me')).status);
      assert.deepEqual(across, [429, 429, 429, 429, 429]);
      first.clock.advance(2000);
      second.clock.advance(2000);

      // A token revoked through one instance stops working on the other, whose cache held it (the
      // pinned clock never expires the entry): the revocation travels over Redis.
      const operatorOnFirst = first.operator;
      const tokens = (await operatorOnFirst.get(`/api/admin/users/${account.id}/tokens`)).json();
      assert.equal((await operatorOnFirst.delete(`/api/admin/tokens/${tokens[0].id}`)).status, 204);
      first.clock.advance(1000);
      second.clock.advance(1000);
      // Delivery is asynchronous (a few milliseconds): look until it arrives, for less than the
      // second after which each instance's own poll of the database would find it without Redis.
      await waitFor('the revocation on the other instance', async () => (await onSecond.get('/api/me')).status === 401, {
        timeoutMs: 250,
        intervalMs: 50,
      });
    } finally {
      await first.close();
      await second.close();
      await database.close();
    }
  });
});

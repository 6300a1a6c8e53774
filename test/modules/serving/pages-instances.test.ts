import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { insertBlock } from '../../helpers/fixtures.ts';
import { redisUnreachable, TEST_REDIS_URL } from '../../helpers/redis.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../../helpers/serving.ts';

/** Two instances of one deployment sharing a database and a Redis: pages and caps hold across them. */
describe('one page and frequency caps across two instances (Redis)', () => {
  let first: TestServer;
  let second: TestServer;
  let unreachable: string | undefined;
  const newId = () => randomBytes(12).toString('hex');

  before(async () => {
    unreachable = await redisUnreachable(TEST_REDIS_URL);
    if (unreachable !== undefined) return;
    const config = { servingRefreshMs: 600_000, redisUrl: TEST_REDIS_URL, redisKeyPrefix: `nativa-test-${newId()}:` };
    // Instances of one deployment share the signing secret: it keys the visitor ids of frequency caps too.
    const env = { SIGNING_SECRET: `instances-test-secret-${newId()}` };
    first = await startTestServer({ config, env });
    second = await startTestServer({ config, env, database: first.server.context.database });
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  const teasers = async (server: TestServer, blockId: number, query: Record<string, string>) => {
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers?${new URLSearchParams(query)}`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { id: number; view: string }[] }>().teasers;
  };
  const ids = async (server: TestServer, blockId: number, query: Record<string, string>) =>
    (await teasers(server, blockId, query)).map((teaser) => teaser.id);
  /** A beacon to one instance, counted by its flush. */
  const viewed = async (server: TestServer, tokens: string[]) => {
    const response = await server.anonymous.request('POST', '/api/serve/views', {
      raw: tokens.join('\n'),
      contentType: 'text/plain;charset=UTF-8',
      headers: { 'User-Agent': DESKTOP_UA },
    });
    assert.equal(response.status, 204, response.text);
    await engineOf(server).impressions.flush();
  };

  it('two blocks of a page asked of two instances at once never show the same ad', async (t) => {
    if (unreachable !== undefined) return t.skip(`Redis is unreachable (${unreachable}); set TEST_REDIS_URL`);
    const world = await createWorld(first, {
      ads: [6, 5, 4, 3, 2, 1].map((tenths) => ({ bidMicros: tenths * 100_000 })),
      teaserCount: 3,
    });
    const other = await insertBlock(first.server.context.db, { siteId: world.siteId, teaserCount: 3 });
    await engineOf(first).refresh();
    await engineOf(second).refresh();
    for (let round = 0; round < 10; round += 1) {
      const page = newId();
      const [a, b] = await Promise.all([ids(first, world.blockId, { page }), ids(second, other.id, { page })]);
      const shown = [...a, ...b];
      assert.equal(new Set(shown).size, shown.length, `round ${round}: no ad twice: ${a} | ${b}`);
      assert.equal(shown.length, 6, `round ${round}: every ad shown once: ${a} | ${b}`);
    }
  });

  it("a visitor's views on one instance count against the cap on the other", async (t) => {
    if (unreachable !== undefined) return t.skip(`Redis is unreachable (${unreachable}); set TEST_REDIS_URL`);
    const world = await createWorld(first, { ads: [{ bidMicros: 900_000 }, { bidMicros: 100_000 }], teaserCount: 1 });
    const [capped = 0] = world.campaignIds;
    const [cappedAd = 0, otherAd = 0] = world.offerIds;
    assert.equal((await world.advertiser.put(`/api/advertiser/campaigns/${capped}`, { frequencyCap: 2 })).status, 200);
    await engineOf(first).refresh();
    await engineOf(second).refresh();
    const visitor = newId();
    const [served] = await teasers(first, world.blockId, { visitor });
    assert.equal(served?.id, cappedAd);
    // Served by the first instance, its beacon counted by the second (a load balancer's choice).
    await viewed(second, [served?.view ?? '']);
    const [again] = await teasers(second, world.blockId, { visitor });
    assert.equal(again?.id, cappedAd);
    // The same beacon sent to both instances at once counts once: the seen-set is in the database.
    await Promise.all([viewed(first, [again?.view ?? '']), viewed(second, [again?.view ?? ''])]);
    // Two views, each counted by one instance; both read them from Redis.
    assert.deepEqual(await ids(first, world.blockId, { visitor }), [otherAd]);
    assert.deepEqual(await ids(second, world.blockId, { visitor }), [otherAd]);
  });
});

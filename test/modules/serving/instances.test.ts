import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertOffer } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, pathOf } from '../../helpers/serving.ts';

describe('serving on two instances of one deployment', () => {
  let first: TestServer;
  let second: TestServer;
  before(async () => {
    // Refreshes happen only when the test calls tick(): no timer races the assertions.
    const config = { servingRefreshMs: 600_000 };
    first = await startTestServer({ config });
    second = await startTestServer({ config, database: first.server.context.database });
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  const teasers = async (server: TestServer, blockId: number) => {
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { id: number; url: string }[] }>().teasers;
  };

  it('the periodic refresh picks up changes made anywhere, and spend made on the other instance', async () => {
    const db = first.server.context.db;
    // 0.02 buys two clicks at the reserve price.
    const world = await createWorld(first, { balance: 0.02, ads: [{ bidMicros: 400_000 }] });
    await engineOf(second).tick();
    assert.deepEqual(
      (await teasers(second, world.blockId)).map((teaser) => teaser.id),
      world.offerIds,
      'a new ad reaches the other instance with its next refresh',
    );

    const added = await insertOffer(db, { campaignId: world.campaignIds[0] ?? 0, bidMicros: 100_000 });
    await engineOf(second).tick();
    assert.deepEqual(
      (await teasers(second, world.blockId)).map((teaser) => teaser.id),
      [...world.offerIds, added.id],
    );

    // Each test server has its own DATA_DIR, hence its own signing secret: links are clicked where served.
    for (let index = 0; index < 2; index += 1) {
      const [teaser] = await teasers(first, world.blockId);
      assert.equal((await first.anonymous.get(pathOf(teaser?.url ?? ''), { headers: { 'User-Agent': DESKTOP_UA } })).status, 302);
    }
    assert.equal((await teasers(first, world.blockId)).length, 0, 'the billing instance stops at once');
    await engineOf(first).settled();
    assert.ok((await teasers(second, world.blockId)).length > 0, 'the other one has not refreshed yet');
    await engineOf(second).tick();
    assert.equal((await teasers(second, world.blockId)).length, 0, 'and stops with its next refresh');

    await first.operator.post(`/api/admin/users/${world.advertiserId}/balance`, { amount: 5, comment: 'top-up' });
    await engineOf(second).tick();
    assert.equal((await teasers(second, world.blockId)).length, 2, 'a top-up brings the ads back');
  });
});

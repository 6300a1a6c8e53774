import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CAPPED_TEASER_TOKEN_LENGTH, TEASER_TOKEN_LENGTH } from '../../../src/modules/serving/tracking/teaser-token.ts';
import { insertBlock, insertOffer } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, type World } from '../../helpers/serving.ts';

type Teaser = { id: number; view: string };

/**
 * One page without repeats, frequency caps and schedules over the real server. With
 * TEST_REDIS_URL set the server keeps pages and view counters in that Redis (as instances that
 * share one do); without it, in process.
 */
describe('serving: one page without repeats, frequency caps, schedules', () => {
  let server: TestServer;
  const headers = { 'User-Agent': DESKTOP_UA };
  const newId = () => randomBytes(12).toString('hex');

  before(async () => {
    const redisUrl = process.env.TEST_REDIS_URL;
    server = await startTestServer({
      config: redisUrl ? { redisUrl, redisKeyPrefix: `nativa-test-${newId()}:` } : {},
    });
  });
  after(() => server.close());

  async function teasers(blockId: number, query: { page?: string; visitor?: string } = {}): Promise<Teaser[]> {
    const search = new URLSearchParams(query as Record<string, string>).toString();
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers${search ? `?${search}` : ''}`, { headers });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: Teaser[] }>().teasers;
  }

  async function teaserIds(blockId: number, query: { page?: string; visitor?: string } = {}): Promise<number[]> {
    return (await teasers(blockId, query)).map((teaser) => teaser.id);
  }

  /** The loader's beacon for teasers that became viewable, then the flush that counts its views (and caps). */
  async function viewed(tokens: string[]): Promise<void> {
    const response = await server.anonymous.request('POST', '/api/serve/views', {
      raw: tokens.join('\n'),
      contentType: 'text/plain;charset=UTF-8',
      headers,
    });
    assert.equal(response.status, 204, response.text);
    await engineOf(server).impressions.flush();
  }

  async function secondBlock(world: World, teaserCount: number): Promise<number> {
    const block = await insertBlock(server.server.context.db, { siteId: world.siteId, teaserCount });
    await engineOf(server).refresh();
    return block.id;
  }

  it('two blocks of one page never show the same ad, also when asked at the same time', async () => {
    const world = await createWorld(server, {
      ads: [600, 500, 400, 300, 200, 100].map((cents) => ({ bidMicros: cents * 1000 })),
      teaserCount: 3,
    });
    const other = await secondBlock(world, 3);
    // Without a page id each block shows the best three: the same ads.
    assert.deepEqual(await teaserIds(world.blockId), world.offerIds.slice(0, 3));
    assert.deepEqual(await teaserIds(other), world.offerIds.slice(0, 3));
    const page = newId();
    const first = await teaserIds(world.blockId, { page });
    const second = await teaserIds(other, { page });
    assert.deepEqual(first, world.offerIds.slice(0, 3));
    assert.deepEqual(second, world.offerIds.slice(3, 6));
    // A third block of the page has nothing left to show; a block loaded again shows nothing again.
    assert.deepEqual(await teaserIds(world.blockId, { page }), []);
    for (let round = 0; round < 5; round += 1) {
      const together = newId();
      const [a, b] = await Promise.all([teaserIds(world.blockId, { page: together }), teaserIds(other, { page: together })]);
      assert.equal(a.length + b.length, 6, 'all six ads shown between the two blocks');
      assert.deepEqual(
        [...a, ...b].sort((x, y) => x - y),
        [...world.offerIds].sort((x, y) => x - y),
        'no ad twice on the page',
      );
    }
  });

  it('a block that asks for it shows no campaign another block of the page showed, and one ad per campaign', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 900_000 }, { bidMicros: 100_000 }], teaserCount: 2 });
    const [big = 0, small = 0] = world.campaignIds;
    const bigSecond = (await insertOffer(db, { campaignId: big, bidMicros: 800_000 })).id;
    const smallSecond = (await insertOffer(db, { campaignId: small, bidMicros: 50_000 })).id;
    const unique = await secondBlock(world, 2);
    const changed = await world.publisher.put(`/api/webmaster/blocks/${unique}`, { noCampaignRepeats: true });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json<{ noCampaignRepeats?: boolean }>().noCampaignRepeats, true);
    await engineOf(server).refresh();
    const [bigFirst = 0, smallFirst = 0] = world.offerIds;
    // The ordinary block shows both of the big campaign's ads.
    const page = newId();
    assert.deepEqual(await teaserIds(world.blockId, { page }), [bigFirst, bigSecond]);
    // The unique block may not show the big campaign at all: only the small one's best ad.
    assert.deepEqual(await teaserIds(unique, { page }), [smallFirst]);
    // Alone on a page it shows each campaign once: the best ad of each.
    assert.deepEqual(await teaserIds(unique, { page: newId() }), [bigFirst, smallFirst]);
    // An ordinary block after a unique one may repeat a campaign, never an ad.
    const reversed = newId();
    assert.deepEqual(await teaserIds(unique, { page: reversed }), [bigFirst, smallFirst]);
    assert.deepEqual(await teaserIds(world.blockId, { page: reversed }), [bigSecond, smallSecond]);
  });

  it('a capped campaign stops serving to a visitor after its viewable views and serves others; the next day again', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 900_000 }, { bidMicros: 100_000 }], teaserCount: 1 });
    const [capped = 0] = world.campaignIds;
    const [cappedAd = 0, otherAd = 0] = world.offerIds;
    const put = await world.advertiser.put(`/api/advertiser/campaigns/${capped}`, { frequencyCap: 2 });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json<{ frequencyCap?: number }>().frequencyCap, 2);
    await engineOf(server).refresh();
    const visitor = newId();
    // Served but never viewable: no count, however often.
    const unseen: Teaser[] = [];
    for (let load = 0; load < 4; load += 1) unseen.push(...(await teasers(world.blockId, { visitor })));
    assert.deepEqual(
      unseen.map((teaser) => teaser.id),
      [cappedAd, cappedAd, cappedAd, cappedAd],
      'served-but-not-viewed teasers count nothing',
    );
    const [first, second, third] = unseen;
    assert.ok(first && second && third);
    assert.equal(first.view.length, CAPPED_TEASER_TOKEN_LENGTH, "a capped campaign's token carries the visitor");
    // One viewable view, then its beacon replayed (in the same flush and after it): one view.
    await viewed([first.view, first.view]);
    await viewed([first.view]);
    assert.deepEqual(await teaserIds(world.blockId, { visitor }), [cappedAd], 'one view of two, a replay counted once');
    // The second view reaches the cap.
    await viewed([second.view]);
    const [shown] = await teasers(world.blockId, { visitor });
    assert.equal(shown?.id, otherAd);
    assert.equal(shown?.view.length, TEASER_TOKEN_LENGTH, "an uncapped campaign's token names no visitor");
    // The other ad's views count toward no cap, and more views of the capped ad change nothing.
    await viewed([shown?.view ?? '', third.view]);
    assert.deepEqual(await teaserIds(world.blockId, { visitor }), [otherAd]);
    assert.deepEqual(await teaserIds(world.blockId, { visitor: newId() }), [cappedAd], 'another visitor still sees it');
    server.clock.advance(86_400_000);
    await engineOf(server).refresh();
    assert.deepEqual(await teaserIds(world.blockId, { visitor }), [cappedAd], 'a new day, a new count');
    // Without a visitor id the visitor is a hash of address and User-Agent: capped all the same.
    const anonymous: number[] = [];
    for (let load = 0; load < 3; load += 1) {
      const [teaser] = await teasers(world.blockId);
      assert.ok(teaser);
      anonymous.push(teaser.id);
      await viewed([teaser.view]);
    }
    assert.deepEqual(anonymous, [cappedAd, cappedAd, otherAd]);
  });

  it('a scheduled campaign does not serve outside its hours, in its own time zone', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 900_000 }, { bidMicros: 100_000 }], teaserCount: 1 });
    const [scheduled = 0] = world.campaignIds;
    const [scheduledAd = 0, otherAd = 0] = world.offerIds;
    // Pin the clock to Tuesday 2026-03-17 12:30 UTC: hour 36 of the week in UTC, 37 in Berlin (CET).
    server.clock.set(Date.UTC(2026, 2, 17, 12, 30));
    const set = async (body: Record<string, unknown>) => {
      const response = await world.advertiser.put(`/api/advertiser/campaigns/${scheduled}`, body);
      assert.equal(response.status, 200, response.text);
      await engineOf(server).refresh();
      return response.json<{ schedule?: number[]; timeZone?: string }>();
    };
    assert.deepEqual((await set({ schedule: '37-40' })).schedule, [37, 38, 39, 40]);
    assert.deepEqual(await teaserIds(world.blockId), [otherAd], 'outside its hours');
    server.clock.advance(60 * 60_000);
    assert.deepEqual(await teaserIds(world.blockId), [scheduledAd], 'inside its hours: the same snapshot, a later hour');
    server.clock.advance(-60 * 60_000);
    assert.equal((await set({ timeZone: 'Europe/Berlin' })).timeZone, 'Europe/Berlin');
    assert.deepEqual(await teaserIds(world.blockId), [scheduledAd], '13:30 in Berlin');
    const cleared = await set({ schedule: null, timeZone: null });
    assert.equal('schedule' in cleared || 'timeZone' in cleared, false);
    server.clock.advance(4 * 86_400_000);
    assert.deepEqual(await teaserIds(world.blockId), [scheduledAd], 'no schedule: every hour');
  });

  it('refuses a page or visitor id that is not one the loader makes', async () => {
    const world = await createWorld(server, { teaserCount: 1 });
    for (const query of ['page=short', 'visitor=has%20space%20in%20it%20really', `page=${'x'.repeat(65)}`]) {
      const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers?${query}`, { headers });
      assert.equal(response.status, 422, `${query}: ${response.text}`);
    }
  });
});

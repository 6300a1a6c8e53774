import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PACING_LEAD } from '../../../src/modules/serving/selection/pacing.ts';
import { insertSite, recordTraffic } from '../../helpers/fixtures.ts';
import type { TestClient } from '../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, MOBILE_UA, type World } from '../../helpers/serving.ts';

interface ExplainedAd {
  id: number;
  status: 'eligible' | 'filtered';
  reasons: string[];
  price: number | null;
}

const DAY_MS = 86_400_000;

/**
 * Flight dates, lifetime budgets, even pacing, OS and browser targets, site lists, brand safety
 * and block floors, set through the API: serving honours each, and explain names it.
 */
describe('serving: campaign control (docs/adr/0042)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function teaserIds(blockId: number, userAgent = DESKTOP_UA): Promise<number[]> {
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, { headers: { 'User-Agent': userAgent } });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { id: number }[] }>().teasers.map((teaser) => teaser.id);
  }

  async function explained(world: World, campaignId: number, query = ''): Promise<ExplainedAd> {
    const response = await world.advertiser.get(`/api/advertiser/campaigns/${campaignId}/explain?block=${world.blockId}${query}`);
    assert.equal(response.status, 200, response.text);
    const [ad] = response.json<{ ads: ExplainedAd[] }>().ads;
    assert.ok(ad);
    return ad;
  }

  async function change(client: TestClient, campaignId: number, body: Record<string, unknown>) {
    const response = await client.put(`/api/advertiser/campaigns/${campaignId}`, body);
    assert.equal(response.status, 200, response.text);
    await engineOf(server).refresh();
    return response.json<Record<string, unknown>>();
  }

  async function spend(world: World, campaignId: number, at: number, spendMicros: number) {
    const [offerId = 0] = world.offerIds;
    await recordTraffic(server.server.context.db, [
      { at, campaignId, offerId, siteId: world.siteId, blockId: world.blockId, device: 1, clicks: 1, spendMicros },
    ]);
    await engineOf(server).refresh();
  }

  it('flight dates: local times on the campaign’s clock; serves only between start and end', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const [campaignId = 0] = world.campaignIds;
    const [adId = 0] = world.offerIds;
    const now = server.clock.now();
    // 14:00 in Berlin in March is 13:00 UTC: an hour after the test clock's now.
    const changed = await change(world.advertiser, campaignId, {
      timeZone: 'Europe/Berlin',
      startsAt: '2026-03-10T14:00',
      endsAt: new Date(now + 3 * 3_600_000).toISOString(),
    });
    assert.equal(changed.startsAt, new Date(now + 3_600_000).toISOString());
    assert.equal(changed.endsAt, new Date(now + 3 * 3_600_000).toISOString());
    assert.deepEqual(await teaserIds(world.blockId), []);
    assert.deepEqual((await explained(world, campaignId)).reasons, ['flight']);
    server.clock.advance(3_600_000);
    assert.deepEqual(await teaserIds(world.blockId), [adId], 'serves from its start');
    server.clock.advance(2 * 3_600_000);
    assert.deepEqual(await teaserIds(world.blockId), [], 'the end is exclusive');
    assert.deepEqual((await explained(world, campaignId)).reasons, ['flight']);
    const cleared = await change(world.advertiser, campaignId, { startsAt: null, endsAt: null });
    assert.equal(cleared.startsAt, undefined);
    assert.deepEqual(await teaserIds(world.blockId), [adId]);
  });

  it('a lifetime budget counts every day’s spend, today’s included', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const [campaignId = 0] = world.campaignIds;
    const [adId = 0] = world.offerIds;
    const changed = await change(world.advertiser, campaignId, { totalBudget: 3 });
    assert.equal(changed.totalBudget, 3);
    await spend(world, campaignId, server.clock.now() - 2 * DAY_MS, 2_000_000);
    assert.deepEqual(await teaserIds(world.blockId), [adId], '2 of 3 spent');
    await spend(world, campaignId, server.clock.now(), 1_000_000);
    assert.deepEqual(await teaserIds(world.blockId), [], '3 of 3 spent');
    assert.deepEqual((await explained(world, campaignId)).reasons, ['total_budget']);
    await change(world.advertiser, campaignId, { totalBudget: 10 });
    assert.deepEqual(await teaserIds(world.blockId), [adId], 'a larger budget serves again');
  });

  it('even pacing holds the day’s spend to the share of the day gone, plus an hour', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const [campaignId = 0] = world.campaignIds;
    const [adId = 0] = world.offerIds;
    const daily = 24_000_000;
    // The day's target is what is left of the lifetime budget over the days left (two: today and tomorrow).
    const endsAt = new Date(server.clock.now() + 1.5 * DAY_MS).toISOString();
    const changed = await change(world.advertiser, campaignId, { totalBudget: 48, endsAt, pacing: 'even' });
    assert.equal(changed.pacing, 'even');
    // The test clock's days are UTC days; spend right up to the allowance of this minute.
    const now = server.clock.now();
    const fraction = (now % DAY_MS) / DAY_MS;
    const allowance = Math.floor(daily * Math.min(1, fraction + PACING_LEAD));
    await spend(world, campaignId, now, allowance - 1);
    assert.deepEqual(await teaserIds(world.blockId), [adId], 'under the allowance');
    await spend(world, campaignId, now, 1);
    assert.deepEqual(await teaserIds(world.blockId), [], 'at the allowance');
    assert.deepEqual((await explained(world, campaignId)).reasons, ['pacing']);
    server.clock.advance(3_600_000);
    assert.deepEqual(await teaserIds(world.blockId), [adId], 'an hour later the day has caught up');
    await change(world.advertiser, campaignId, { pacing: 'asap' });
    server.clock.advance(-3_600_000);
    assert.deepEqual(await teaserIds(world.blockId), [adId], 'asap spends as fast as it can');
    // With a daily budget, the daily budget is the target (set as a fixture: the API sets it on creation).
    await server.server.context.db
      .updateTable('campaigns')
      .set({ daily_budget_micros: 2 * daily, total_budget_micros: 0 })
      .where('id', '=', campaignId)
      .execute();
    await change(world.advertiser, campaignId, { pacing: 'even' });
    assert.deepEqual(await teaserIds(world.blockId), [adId], 'twice the target: far under its allowance');
  });

  it('targets operating systems and browsers by family and major version', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const [campaignId = 0] = world.campaignIds;
    const [adId = 0] = world.offerIds;
    const changed = await change(world.advertiser, campaignId, { os: 'Android:14, ios', browsers: ['chrome'] });
    assert.deepEqual(changed.os, ['android:14', 'ios']);
    assert.deepEqual(changed.browsers, ['chrome']);
    assert.deepEqual(await teaserIds(world.blockId, DESKTOP_UA), [], 'Linux is not targeted');
    assert.deepEqual(await teaserIds(world.blockId, MOBILE_UA), [adId], 'Android 14 with Chrome is');
    assert.deepEqual(await teaserIds(world.blockId, ''), [], 'an unknown system is not');
    assert.deepEqual((await explained(world, campaignId, '&os=linux')).reasons, ['os']);
    assert.deepEqual((await explained(world, campaignId, '&os=android:13&browser=chrome')).reasons, ['os']);
    assert.deepEqual((await explained(world, campaignId, '&os=ios&browser=safari:17')).reasons, ['browser']);
    assert.equal((await explained(world, campaignId, '&os=ios:17&browser=chrome:131')).status, 'eligible');
    await change(world.advertiser, campaignId, { os: null, browsers: '' });
    assert.deepEqual(await teaserIds(world.blockId, DESKTOP_UA), [adId], 'cleared: every system');
  });

  it('targets device types: a phone-only campaign is not served to a desktop visitor', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const [campaignId = 0] = world.campaignIds;
    const [adId = 0] = world.offerIds;
    const changed = await change(world.advertiser, campaignId, { devices: 'Mobile' });
    assert.deepEqual(changed.devices, ['mobile']);
    assert.deepEqual(await teaserIds(world.blockId, DESKTOP_UA), [], 'a desktop visitor is not served');
    assert.deepEqual(await teaserIds(world.blockId, MOBILE_UA), [adId], 'a phone is');
    assert.deepEqual((await explained(world, campaignId, '&device=desktop')).reasons, ['device']);
    assert.deepEqual((await explained(world, campaignId, '&device=tablet')).reasons, ['device']);
    assert.equal((await explained(world, campaignId, '&device=mobile')).status, 'eligible');
    const both = await change(world.advertiser, campaignId, { devices: ['tablet', 'desktop'] });
    assert.deepEqual(both.devices, ['desktop', 'tablet'], 'in the API’s order');
    assert.deepEqual(await teaserIds(world.blockId, DESKTOP_UA), [adId]);
    assert.deepEqual(await teaserIds(world.blockId, MOBILE_UA), []);
    const cleared = await change(world.advertiser, campaignId, { devices: null });
    assert.equal(cleared.devices, undefined);
    assert.deepEqual(await teaserIds(world.blockId, MOBILE_UA), [adId], 'cleared: every device');
  });

  it('site allow and block lists, by id and by domain', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const [campaignId = 0] = world.campaignIds;
    const [adId = 0] = world.offerIds;
    const other = await insertSite(server.server.context.db, {
      publisherId: world.publisherId,
      url: 'https://www.blog.example.org/',
    });
    const allowed = await change(world.advertiser, campaignId, { siteAllow: [other.id] });
    assert.deepEqual(allowed.siteAllow, [other.id]);
    assert.deepEqual(await teaserIds(world.blockId), []);
    assert.deepEqual((await explained(world, campaignId)).reasons, ['site_list']);
    await change(world.advertiser, campaignId, { siteAllow: [other.id, world.siteId] });
    assert.deepEqual(await teaserIds(world.blockId), [adId]);
    // The world's site is https://news.example.test/n: its domain, and its parent's, block it.
    const blocked = await change(world.advertiser, campaignId, { siteAllow: null, siteBlock: ['https://www.example.test/x'] });
    assert.deepEqual(blocked.siteBlock, ['example.test']);
    assert.deepEqual(await teaserIds(world.blockId), []);
    assert.deepEqual((await explained(world, campaignId)).reasons, ['site_list']);
    await change(world.advertiser, campaignId, { siteBlock: ['blog.example.org', other.id] });
    assert.deepEqual(await teaserIds(world.blockId), [adId], 'another site’s domain blocks only that one');
  });

  it('a site refuses categories; a block’s minimum CPC is a floor the auction respects', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }, { bidMicros: 300_000 }], teaserCount: 2 });
    const [first = 0, second = 0] = world.campaignIds;
    const [firstAd = 0, secondAd = 0] = world.offerIds;
    assert.deepEqual(await teaserIds(world.blockId), [firstAd, secondAd]);
    // The publisher reads the product categories it may refuse here, roots and children (the advertiser entry point is closed to it).
    const listed = await world.publisher.get('/api/webmaster/productCategories?per-page=100');
    assert.equal(listed.status, 200, listed.text);
    const categories = listed.json<{ id: number; parent_id: number | null }[]>();
    assert.ok(categories.some((category) => category.id === 2 && category.parent_id === null));
    assert.ok(categories.some((category) => category.parent_id === 2));
    assert.equal((await world.publisher.get('/api/advertiser/categories')).status, 403);
    // The fixtures file campaigns under category 2.
    const refused = await world.publisher.put(`/api/webmaster/sites/${world.siteId}`, { refusedCategories: [2, 2] });
    assert.equal(refused.status, 200, refused.text);
    assert.deepEqual(refused.json<{ refusedCategories?: number[] }>().refusedCategories, [2]);
    await engineOf(server).refresh();
    assert.deepEqual(await teaserIds(world.blockId), []);
    assert.deepEqual((await explained(world, first)).reasons, ['category']);
    const unknown = await world.publisher.put(`/api/webmaster/sites/${world.siteId}`, { refusedCategories: [999_999] });
    assert.equal(unknown.status, 422, unknown.text);
    const stranger = await server.createAccount('publisher');
    const foreign = await stranger.client.put(`/api/webmaster/sites/${world.siteId}`, { refusedCategories: [] });
    assert.equal(foreign.status, 404, foreign.text);
    const cleared = await world.publisher.put(`/api/webmaster/sites/${world.siteId}`, { refusedCategories: [] });
    assert.equal(cleared.status, 200, cleared.text);

    const floored = await world.publisher.put(`/api/webmaster/blocks/${world.blockId}`, { minCpc: 0.4 });
    assert.equal(floored.status, 200, floored.text);
    assert.equal(floored.json<{ minCpc?: number }>().minCpc, 0.4);
    await engineOf(server).refresh();
    assert.deepEqual(await teaserIds(world.blockId), [firstAd], 'the 0.30 bid is under the floor');
    assert.deepEqual((await explained(world, second)).reasons, ['floor']);
    const winner = await explained(world, first);
    assert.equal(winner.price, 0.4, 'alone, it pays the floor, not the reserve');
    const negative = await world.publisher.put(`/api/webmaster/blocks/${world.blockId}`, { minCpc: -1 });
    assert.equal(negative.status, 422, negative.text);
    const reset = await world.publisher.put(`/api/webmaster/blocks/${world.blockId}`, { minCpc: 0 });
    assert.equal(reset.json<{ minCpc?: number }>().minCpc, undefined);
  });

  it('refuses bad control fields with 422 naming them, and changes nothing', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const [campaignId = 0] = world.campaignIds;
    const cases: [Record<string, unknown>, string][] = [
      [{ os: ['symbian'] }, 'os'],
      [{ devices: ['phone'] }, 'devices'],
      [{ devices: 'desktop, watch' }, 'devices'],
      [{ browsers: 'chrome:0' }, 'browsers'],
      [{ startsAt: 'tomorrow' }, 'startsAt'],
      [{ startsAt: '2026-04-02T00:00Z', endsAt: '2026-04-01T00:00Z' }, 'endsAt'],
      [{ siteBlock: ['not a domain'] }, 'siteBlock'],
      [{ totalBudget: -1 }, 'totalBudget'],
      [{ pacing: 'fast' }, 'pacing'],
    ];
    for (const [body, field] of cases) {
      const response = await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, body);
      assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
      const errors = response.json<{ errors?: { field: string }[] }>().errors ?? [];
      assert.ok(
        errors.some((error) => error.field === field),
        `${JSON.stringify(body)} names ${field}: ${response.text}`,
      );
    }
    // An end before the stored start is refused too.
    await change(world.advertiser, campaignId, { startsAt: '2026-05-01T00:00:00Z' });
    const early = await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, { endsAt: '2026-04-01T00:00:00Z' });
    assert.equal(early.status, 422, early.text);
    const stored = await world.advertiser.get(`/api/advertiser/campaigns/${campaignId}`);
    const campaign = stored.json<Record<string, unknown>>();
    assert.equal(campaign.startsAt, '2026-05-01T00:00:00.000Z');
    assert.equal(campaign.endsAt, undefined);
    assert.equal(campaign.os, undefined);
  });

  it('creates a campaign with every control field, and reads it back in XML too', async () => {
    const advertiser = await server.createAccount('advertiser');
    const created = await advertiser.client.post('/api/advertiser/campaigns', {
      title: 'Controlled',
      category_id: 2,
      startsAt: '2026-04-01T00:00:00Z',
      endsAt: '2026-05-01T00:00:00Z',
      totalBudget: '150.5',
      pacing: 'even',
      os: ['windows', 'macos'],
      browsers: 'firefox:128',
      siteAllow: [7, 'Example.COM'],
      siteBlock: [],
    });
    assert.equal(created.status, 201, created.text);
    const campaign = created.json<Record<string, unknown>>();
    assert.deepEqual(
      {
        startsAt: campaign.startsAt,
        endsAt: campaign.endsAt,
        totalBudget: campaign.totalBudget,
        pacing: campaign.pacing,
        os: campaign.os,
        browsers: campaign.browsers,
        siteAllow: campaign.siteAllow,
        siteBlock: campaign.siteBlock,
      },
      {
        startsAt: '2026-04-01T00:00:00.000Z',
        endsAt: '2026-05-01T00:00:00.000Z',
        totalBudget: 150.5,
        pacing: 'even',
        os: ['windows', 'macos'],
        browsers: ['firefox:128'],
        siteAllow: [7, 'example.com'],
        siteBlock: undefined,
      },
    );
    const xml = await advertiser.client.get(`/api/advertiser/campaigns/${campaign.id}`, {
      headers: { Accept: 'application/xml' },
    });
    assert.equal(xml.status, 200, xml.text);
    assert.match(xml.text, /<totalBudget>150.5<\/totalBudget>/);
    assert.match(xml.text, /<pacing>even<\/pacing>/);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../../helpers/fixtures.ts';
import type { TestClient } from '../../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { createWorld, engineOf, type World } from '../../../helpers/serving.ts';

interface ExplainedAd {
  id: number;
  title: string;
  status: 'eligible' | 'filtered';
  reasons: string[];
  bid: number;
  placementCoefficient: number | null;
  deviceCoefficient: number | null;
  effectiveBid: number | null;
  ctr: number | null;
  score: number | null;
  rank: number | null;
  wins: boolean;
  price: number | null;
  priceToBeat: number | null;
}

interface CampaignExplanation {
  campaign: number;
  block: number;
  device: string;
  country: string;
  teaserCount: number;
  ads: ExplainedAd[];
}

interface BlockExplanation {
  block: number;
  device: string;
  country: string;
  teaserCount: number;
  eligible: number;
  teasers: { rank: number; id: number; title: string; domain: string; score: number }[];
  filtered: { reason: string; count: number }[];
}

describe('explain: why ads would or would not show', () => {
  let server: TestServer;
  let world: World;

  before(async () => {
    server = await startTestServer();
    world = await createWorld(server, { ads: [{ bidMicros: 500_000 }, { bidMicros: 300_000 }], teaserCount: 4 });
  });
  after(() => server.close());

  const explain = async (client: TestClient, campaignId: number, query: string) => {
    const response = await client.get(`/api/advertiser/campaigns/${campaignId}/explain?${query}`);
    assert.equal(response.status, 200, response.text);
    return response.json<CampaignExplanation>();
  };
  /** The one ad of a campaign, explained for the world's block. */
  const adOf = async (campaignId: number, query = '', client = world.advertiser) => {
    const result = await explain(client, campaignId, `block=${world.blockId}${query}`);
    assert.equal(result.ads.length, 1);
    return result.ads[0] as ExplainedAd;
  };
  /** A campaign with one ad of the world's advertiser, in the index (or not, with refresh false). */
  const addCampaign = async (
    campaign: Partial<Parameters<typeof insertCampaign>[1]> = {},
    offer: { approved?: boolean } = {},
    refresh = true,
  ) => {
    const db = server.server.context.db;
    const { id } = await insertCampaign(db, { advertiserId: world.advertiserId, ...campaign });
    await insertOffer(db, { campaignId: id, bidMicros: 100_000, ...offer });
    if (refresh) await engineOf(server).refresh();
    return id;
  };

  it('ranks an eligible ad with its coefficients, CTR, score and price, and hides competitors', async () => {
    const [first, second] = world.campaignIds as [number, number];
    const result = await explain(world.advertiser, first, `block=${world.blockId}`);
    assert.equal(result.campaign, first);
    assert.equal(result.block, world.blockId);
    assert.equal(result.device, 'desktop');
    assert.equal(result.country, '');
    assert.equal(result.teaserCount, 4);
    assert.deepEqual(result.ads, [
      {
        id: world.offerIds[0],
        title: result.ads[0]?.title,
        status: 'eligible',
        reasons: [],
        bid: 0.5,
        placementCoefficient: 1,
        deviceCoefficient: 1,
        effectiveBid: 0.5,
        ctr: 0.01,
        // 0.5 × 0.01 per impression, × 1000.
        score: 5,
        rank: 1,
        wins: true,
        // Second price: 0.3 × 0.01 / 0.01 + 0.01.
        price: 0.31,
        priceToBeat: null,
      },
    ]);
    const other = await adOf(second);
    assert.equal(other.rank, 2);
    assert.equal(other.price, 0.01, 'the last ad pays the reserve');
    assert.equal(other.priceToBeat, null, 'every eligible ad is shown');
    // Nothing of the other ads: no scores, count, ids, titles or campaigns; only the ad's own rank and price to beat.
    assert.deepEqual(Object.keys(result).sort(), ['ads', 'block', 'campaign', 'country', 'device', 'teaserCount']);
  });

  it('tells an ad that is not shown the effective bid at which it would be, and nothing of the ad shown', async () => {
    const [, second] = world.campaignIds as [number, number];
    const db = server.server.context.db;
    await db.updateTable('blocks').set({ teaser_count: 1 }).where('id', '=', world.blockId).execute();
    await engineOf(server).refresh();
    try {
      const response = await world.advertiser.get(`/api/advertiser/campaigns/${second}/explain?block=${world.blockId}`);
      assert.equal(response.status, 200, response.text);
      const result = response.json<CampaignExplanation>();
      const [ad] = result.ads;
      assert.equal(ad?.rank, 2);
      assert.equal(ad?.wins, false);
      // The shown ad's 0.5 × 0.01 per view, over this ad's CTR of 0.01, plus 0.01.
      assert.equal(ad?.priceToBeat, 0.51);
      assert.equal(response.text.includes('"scores"'), false);
      assert.deepEqual(
        result.ads.map((entry) => entry.id),
        [world.offerIds[1]],
        'only the campaign’s own ad',
      );
    } finally {
      await db.updateTable('blocks').set({ teaser_count: 4 }).where('id', '=', world.blockId).execute();
      await engineOf(server).refresh();
    }
  });

  it('applies the block and device coefficients serving applies', async () => {
    const [first] = world.campaignIds as [number];
    const base = `/api/advertiser/campaigns/multipliers/${first}`;
    assert.equal((await world.advertiser.put(`${base}/site/${world.siteId}s${world.blockId}`, { coef: 2 })).status, 200);
    assert.equal((await world.advertiser.put(`${base}/device/mobile`, { coef: 1.5 })).status, 200);
    await engineOf(server).refresh();
    const mobile = await adOf(first, '&device=mobile');
    assert.equal(mobile.placementCoefficient, 2);
    assert.equal(mobile.deviceCoefficient, 1.5);
    assert.equal(mobile.effectiveBid, 1.5);
    assert.equal(mobile.score, 15);
    const desktop = await adOf(first, '&device=desktop');
    assert.equal(desktop.deviceCoefficient, 1);
    assert.equal(desktop.effectiveBid, 1);
  });

  it('tells why ads are not in serving: paused, not approved, ad paused, moderation, not yet indexed', async () => {
    const db = server.server.context.db;
    assert.deepEqual((await adOf(await addCampaign({ active: false }))).reasons, ['campaign_paused']);
    assert.deepEqual((await adOf(await addCampaign({ approved: false }))).reasons, ['campaign_not_approved']);
    assert.deepEqual((await adOf(await addCampaign({}, { approved: false }))).reasons, ['moderation']);
    const adPaused = await addCampaign();
    await db.updateTable('offers').set({ active: false }).where('campaign_id', '=', adPaused).execute();
    assert.deepEqual((await adOf(adPaused)).reasons, ['ad_paused']);
    const fresh = await adOf(await addCampaign({}, {}, false));
    assert.deepEqual([fresh.status, fresh.reasons, fresh.rank], ['filtered', ['not_indexed'], null]);
    await engineOf(server).refresh();
  });

  it('tells why ads in serving do not compete: geo, audience, budget, daily limit, balance', async () => {
    const db = server.server.context.db;
    const geo = await addCampaign({ geo: ['DE'] });
    assert.deepEqual((await adOf(geo, '&country=US')).reasons, ['geo']);
    assert.deepEqual((await adOf(geo)).reasons, ['geo'], 'a visitor of unknown country');
    assert.equal((await adOf(geo, '&country=de')).status, 'eligible');

    const retargeting = await addCampaign({ isRetarget: true });
    assert.deepEqual((await adOf(retargeting, '&visitor=someone')).reasons, ['audience']);
    await engineOf(server).addToAudience(world.advertiserId, 'someone');
    assert.equal((await adOf(retargeting, '&visitor=someone')).status, 'eligible');

    const now = server.clock.now();
    const spend = async (campaignId: number, set: { daily_budget_micros?: number; daily_click_limit?: number }) => {
      await db.updateTable('campaigns').set(set).where('id', '=', campaignId).execute();
      const offer = await db.selectFrom('offers').select('id').where('campaign_id', '=', campaignId).executeTakeFirstOrThrow();
      await recordTraffic(db, [
        {
          at: now,
          campaignId,
          offerId: offer.id,
          siteId: world.siteId,
          blockId: world.blockId,
          device: 1,
          clicks: 1,
          spendMicros: 50_000,
        },
      ]);
    };
    const budget = await addCampaign();
    await spend(budget, { daily_budget_micros: 50_000 });
    const limit = await addCampaign();
    await spend(limit, { daily_click_limit: 1 });
    await engineOf(server).refresh();
    assert.deepEqual((await adOf(budget)).reasons, ['budget']);
    assert.deepEqual((await adOf(limit)).reasons, ['daily_limit']);

    const broke = await server.createAccount('advertiser');
    const { id } = await insertCampaign(db, { advertiserId: broke.id });
    await insertOffer(db, { campaignId: id });
    await engineOf(server).refresh();
    assert.deepEqual((await adOf(id, '', broke.client)).reasons, ['balance']);

    const block = await world.publisher.get(`/api/webmaster/blocks/${world.blockId}/explain?country=US&visitor=nobody`);
    assert.equal(block.status, 200, block.text);
    const filtered = Object.fromEntries(block.json<BlockExplanation>().filtered.map((entry) => [entry.reason, entry.count]));
    assert.deepEqual(
      {
        geo: filtered.geo,
        audience: filtered.audience,
        budget: filtered.budget,
        limit: filtered.daily_limit,
        balance: filtered.balance,
      },
      { geo: 1, audience: 1, budget: 1, limit: 1, balance: 1 },
    );
  });

  it('shows the publisher what fills the block: the teasers serving serves', async () => {
    const response = await world.publisher.get(`/api/webmaster/blocks/${world.blockId}/explain`);
    assert.equal(response.status, 200, response.text);
    const result = response.json<BlockExplanation>();
    const served = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`);
    assert.equal(served.status, 200);
    assert.deepEqual(
      result.teasers.map((teaser) => teaser.id),
      served.json<{ teasers: { id: number }[] }>().teasers.map((teaser) => teaser.id),
    );
    assert.deepEqual(
      result.teasers.map((teaser) => teaser.rank),
      result.teasers.map((_, index) => index + 1),
    );
    assert.ok(result.teasers.length > 0 && result.teasers.length <= result.teaserCount);
  });

  it('answers in XML too', async () => {
    const [first] = world.campaignIds as [number];
    const response = await world.advertiser.get(`/api/advertiser/campaigns/${first}/explain?block=${world.blockId}`, {
      accept: 'application/xml',
    });
    assert.equal(response.status, 200, response.text);
    assert.match(String(response.headers['content-type']), /xml/);
    assert.match(response.text, /<rank>1<\/rank>/);
  });

  it("refuses another account's campaign or block (404), bad input (422), a block of an inactive site", async () => {
    const [first] = world.campaignIds as [number];
    const stranger = await server.createAccount('advertiser');
    assert.equal((await stranger.client.get(`/api/advertiser/campaigns/${first}/explain?block=${world.blockId}`)).status, 404);
    const otherPublisher = await server.createAccount('publisher');
    assert.equal((await otherPublisher.client.get(`/api/webmaster/blocks/${world.blockId}/explain`)).status, 404);
    for (const query of [
      `block=${world.blockId}&device=phone`,
      `block=${world.blockId}&country=USA`,
      `block=${world.blockId}&country=1`,
      'block=0',
      '',
      'block=999999',
    ]) {
      const response = await world.advertiser.get(`/api/advertiser/campaigns/${first}/explain?${query}`);
      assert.equal(response.status, 422, `${query}: ${response.text}`);
    }
    assert.equal((await world.publisher.get(`/api/webmaster/blocks/${world.blockId}/explain?device=tv`)).status, 422);
    const db = server.server.context.db;
    const site = await insertSite(db, { publisherId: world.publisherId, status: 0 });
    const hidden = await insertBlock(db, { siteId: site.id });
    await engineOf(server).refresh();
    assert.equal((await world.publisher.get(`/api/webmaster/blocks/${hidden.id}/explain`)).status, 409);
    const inactive = await world.advertiser.get(`/api/advertiser/campaigns/${first}/explain?block=${hidden.id}`);
    assert.equal(inactive.status, 422);
    assert.equal(inactive.json<{ errors: { field: string }[] }>().errors[0]?.field, 'block');
    assert.equal((await world.publisher.get(`/api/advertiser/campaigns/${first}/explain?block=${world.blockId}`)).status, 403);
  });
});

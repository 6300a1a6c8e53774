import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer } from '../../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { createWorld, engineOf } from '../../../helpers/serving.ts';

interface Problem {
  code: number;
  errors?: { field: string; message: string }[];
}

/** Bulk changes (one request, many ids, all or nothing) and duplicates of campaigns and ads. */
describe('advertiser: bulk changes and duplicates', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const campaignRow = (id: number) =>
    server.server.context.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('switches, archives and sets control fields on many campaigns at once', async () => {
    const advertiser = await server.createAccount('advertiser');
    const db = server.server.context.db;
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push((await insertCampaign(db, { advertiserId: advertiser.id })).id);
    const off = await advertiser.client.post('/api/advertiser/campaigns/bulk', {
      ids,
      active: false,
      pacing: 'even',
      os: ['ios'],
    });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.json<{ ids: number[] }>().ids, ids);
    for (const id of ids) {
      const row = await campaignRow(id);
      assert.deepEqual([row.active, row.pacing, row.os_targets], [false, 'even', ['ios']]);
    }
    const archived = await advertiser.client.post('/api/advertiser/campaigns/bulk', { ids: [ids[0], ids[0]], archived: true });
    assert.deepEqual(archived.json<{ ids: number[] }>().ids, [ids[0]], 'an id given twice changes once');
    assert.equal((await campaignRow(ids[0] ?? 0)).archived, true);
  });

  it('changes nothing when one id fails, and names every failing id', async () => {
    const advertiser = await server.createAccount('advertiser');
    const other = await server.createAccount('advertiser');
    const db = server.server.context.db;
    const own = (await insertCampaign(db, { advertiserId: advertiser.id })).id;
    const foreign = (await insertCampaign(db, { advertiserId: other.id })).id;
    const response = await advertiser.client.post('/api/advertiser/campaigns/bulk', {
      ids: [own, foreign, 999_999_999],
      active: false,
    });
    assert.equal(response.status, 422, response.text);
    const problem = response.json<Problem>();
    assert.deepEqual(
      problem.errors?.map((error) => error.field),
      ['ids[1]', 'ids[2]'],
    );
    assert.equal((await campaignRow(own)).active, true, 'the good id did not change either');
    assert.equal((await campaignRow(foreign)).active, true, 'another advertiser’s campaign is untouched');
    // A rule broken on one campaign only (an end before its own start) fails that id.
    await advertiser.client.put(`/api/advertiser/campaigns/${own}`, { startsAt: '2026-06-01T00:00:00Z' });
    const second = (await insertCampaign(db, { advertiserId: advertiser.id })).id;
    const ends = await advertiser.client.post('/api/advertiser/campaigns/bulk', {
      ids: [second, own],
      endsAt: '2026-05-01T00:00:00Z',
    });
    assert.equal(ends.status, 422, ends.text);
    assert.deepEqual(
      ends.json<Problem>().errors?.map((error) => error.field),
      ['ids[1]'],
    );
    assert.equal((await campaignRow(second)).ends_at, null);
    const empty = await advertiser.client.post('/api/advertiser/campaigns/bulk', { ids: [own] });
    assert.equal(empty.status, 422, empty.text);
  });

  it('switches many ads, and sets one coefficient on many campaigns', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }, { bidMicros: 300_000 }], teaserCount: 2 });
    const off = await world.advertiser.post('/api/advertiser/offers/bulk', { ids: world.offerIds, active: false });
    assert.equal(off.status, 200, off.text);
    await engineOf(server).refresh();
    const served = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`);
    assert.deepEqual(served.json<{ teasers: unknown[] }>().teasers, []);
    const stranger = await server.createAccount('advertiser');
    const foreign = await stranger.client.post('/api/advertiser/offers/bulk', { ids: world.offerIds, active: true });
    assert.equal(foreign.status, 422, foreign.text);

    const coefs = await world.advertiser.post('/api/advertiser/campaigns/multipliers/bulk', {
      ids: world.campaignIds,
      site: `${world.siteId}s${world.blockId}`,
      coef: 1.5,
    });
    assert.equal(coefs.status, 200, coefs.text);
    const devices = await world.advertiser.post('/api/advertiser/campaigns/multipliers/bulk', {
      ids: world.campaignIds,
      device: 'mobile',
      coef: 0.5,
    });
    assert.equal(devices.status, 200, devices.text);
    for (const id of world.campaignIds) {
      const site = await world.advertiser.get(`/api/advertiser/campaigns/multipliers/${id}/site`);
      assert.deepEqual(
        site.json<{ coef: number }[]>().map((row) => row.coef),
        [1.5],
      );
    }
    const both = await world.advertiser.post('/api/advertiser/campaigns/multipliers/bulk', {
      ids: world.campaignIds,
      coef: 2,
    });
    assert.equal(both.status, 422, both.text);
    const missingSite = await world.advertiser.post('/api/advertiser/campaigns/multipliers/bulk', {
      ids: world.campaignIds,
      site: '999999999',
      coef: 2,
    });
    assert.equal(missingSite.status, 422, missingSite.text);
    assert.equal(missingSite.json<Problem>().errors?.length, world.campaignIds.length);
  });

  it('duplicates a campaign with its ads and coefficients, all awaiting moderation; and an ad', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    const db = server.server.context.db;
    const [campaignId = 0] = world.campaignIds;
    await insertOffer(db, { campaignId, bidMicros: 200_000, title: 'Second ad' });
    await world.advertiser.put(`/api/advertiser/campaigns/multipliers/${campaignId}/device/mobile`, { coef: 2 });
    await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, { os: ['android'], totalBudget: 9 });
    const copy = await world.advertiser.post('/api/advertiser/campaigns/duplicate', { id: campaignId });
    assert.equal(copy.status, 201, copy.text);
    const campaign = copy.json<{
      id: number;
      title: string;
      status: number;
      items: number;
      os?: string[];
      totalBudget?: number;
    }>();
    assert.notEqual(campaign.id, campaignId);
    assert.deepEqual(
      [campaign.title, campaign.status, campaign.items, campaign.os, campaign.totalBudget],
      ['Test campaign (copy)', 0, 2, ['android'], 9],
    );
    const ads = await db
      .selectFrom('offers')
      .select(['moderation_status', 'bid_micros'])
      .where('campaign_id', '=', campaign.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(ads, [
      { moderation_status: 0, bid_micros: 500_000 },
      { moderation_status: 0, bid_micros: 200_000 },
    ]);
    const devices = await world.advertiser.get(`/api/advertiser/campaigns/multipliers/${campaign.id}/device`);
    assert.equal(devices.status, 200, devices.text);
    assert.match(devices.text, /"coef":2/);

    const [adId = 0] = world.offerIds;
    const adCopy = await world.advertiser.post('/api/advertiser/offers/duplicate', { id: adId });
    assert.equal(adCopy.status, 201, adCopy.text);
    const ad = adCopy.json<{ id: number; status: number; campaign_id?: number }>();
    assert.notEqual(ad.id, adId);
    assert.equal(ad.status, 0);
    const stranger = await server.createAccount('advertiser');
    assert.equal((await stranger.client.post('/api/advertiser/campaigns/duplicate', { id: campaignId })).status, 404);
    assert.equal((await stranger.client.post('/api/advertiser/offers/duplicate', { id: adId })).status, 404);
  });
});

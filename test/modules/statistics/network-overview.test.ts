import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../helpers/fixtures.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../helpers/server.ts';

const DAY = 86_400_000;

describe('the network overview (GET /api/admin/overview)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('sums money, traffic and invalid clicks of the period, with the top sites and advertisers', async () => {
    const db = server.server.context.db;
    const big = await server.createAccount('advertiser', { name: 'Big Shop' });
    const small = await server.createAccount('advertiser');
    const publisher = await server.createAccount('publisher');
    const site = await insertSite(db, { publisherId: publisher.id, url: 'https://news.example.net' });
    const other = await insertSite(db, { publisherId: publisher.id, url: 'https://blog.example.net' });
    const block = await insertBlock(db, { siteId: site.id });
    const otherBlock = await insertBlock(db, { siteId: other.id });
    const bigCampaign = await insertCampaign(db, { advertiserId: big.id });
    const smallCampaign = await insertCampaign(db, { advertiserId: small.id });
    const bigOffer = await insertOffer(db, { campaignId: bigCampaign.id });
    const smallOffer = await insertOffer(db, { campaignId: smallCampaign.id });
    const at = (id: { campaign: number; offer: number; site: number; block: number }, daysAgo: number) => ({
      at: TEST_EPOCH_MS - daysAgo * DAY,
      campaignId: id.campaign,
      offerId: id.offer,
      siteId: id.site,
      blockId: id.block,
      device: 1 as const,
    });
    const bigOnNews = { campaign: bigCampaign.id, offer: bigOffer.id, site: site.id, block: block.id };
    const smallOnBlog = { campaign: smallCampaign.id, offer: smallOffer.id, site: other.id, block: otherBlock.id };
    await recordTraffic(db, [
      { ...at(bigOnNews, 1), served: 100, views: 80, clicks: 10, spendMicros: 5_000_000, publisherIncomeMicros: 3_500_000 },
      { ...at(bigOnNews, 2), clicks: 2, refundedClicks: 1, refundedSpendMicros: 500_000, refundedPublisherIncomeMicros: 350_000 },
      {
        ...at(smallOnBlog, 1),
        served: 50,
        views: 30,
        clicks: 3,
        invalidClicks: 2,
        spendMicros: 1_000_000,
        publisherIncomeMicros: 700_000,
      },
      // Outside the period asked for: not counted.
      { ...at(bigOnNews, 40), served: 999, clicks: 99, spendMicros: 99_000_000, publisherIncomeMicros: 9_000_000 },
    ]);

    const response = await server.operator.get('/api/admin/overview?dateFrom=2026-03-01&dateTo=2026-03-10');
    assert.equal(response.status, 200, response.text);
    const overview = response.json<
      Record<string, unknown> & {
        topSites: { id: number; spend: number }[];
        topAdvertisers: { id: number; name: string; margin: number }[];
      }
    >();
    assert.deepEqual(
      {
        spend: overview.spend,
        earnings: overview.earnings,
        margin: overview.margin,
        served: overview.served,
        views: overview.views,
        clicks: overview.clicks,
        invalidClicks: overview.invalidClicks,
      },
      { spend: 5.5, earnings: 3.85, margin: 1.65, served: 150, views: 110, clicks: 15, invalidClicks: 3 },
    );
    assert.deepEqual(
      overview.topSites.map((row) => [row.id, row.spend]),
      [
        [site.id, 4.5],
        [other.id, 1],
      ],
    );
    assert.deepEqual(
      overview.topAdvertisers.map((row) => [row.id, row.name, row.margin]),
      [
        [big.id, 'Big Shop', 1.35],
        [small.id, (await small.client.get('/api/me')).json<{ username: string }>().username, 0.3],
      ],
    );

    // Without a period: the last 30 days up to the server's today.
    const fallback = (await server.operator.get('/api/admin/overview')).json<{
      dateFrom: string;
      dateTo: string;
      spend: number;
    }>();
    assert.deepEqual([fallback.dateFrom, fallback.dateTo, fallback.spend], ['2026-02-09', '2026-03-10', 5.5]);
  });

  it('refuses a wrong period and anyone but operators', async () => {
    const wrong = await server.operator.get('/api/admin/overview?dateFrom=2026-03-10&dateTo=2026-03-01');
    assert.equal(wrong.status, 422, wrong.text);
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.get('/api/admin/overview')).status, 403);
    assert.equal((await server.anonymous.get('/api/admin/overview')).status, 401);
  });
});

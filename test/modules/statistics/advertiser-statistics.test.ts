import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCampaign, createOffer, fieldsOf } from '../../helpers/advertiser.ts';
import { recordTraffic } from '../../helpers/fixtures.ts';
import type { TestClient } from '../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { NO_ADVERTISER_TRAFFIC } from '../../helpers/statistics.ts';

const at = (day: string) => Date.parse(`${day}T10:00:00Z`);

type Row = {
  id?: number;
  date: string;
  views: number;
  clicks: number;
  money: number;
  orders: number;
  cpm: number;
  cpo: number;
  cr: number;
  cpc: number;
  ctr: number;
  served: number;
  refundedClicks: number;
  refundedSpend: number;
  invalidClicks: number;
  grossClicks: number;
  netClicks: number;
  netSpend: number;
};

describe('advertiser statistics', () => {
  let server: TestServer;
  let advertiser: { client: TestClient };
  let other: { client: TestClient };
  let publisher: { client: TestClient };
  let first: number;
  let second: number;
  let otherCampaign: number;
  let ads: { a: number; b: number; c: number; foreign: number };

  const stats = async (query: string, client = advertiser.client) => {
    const response = await client.get(`/api/advertiser/statistics${query}`);
    assert.equal(response.status, 200, `${query}: ${response.text}`);
    return response.json<Row[]>();
  };

  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
    other = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
    first = await createCampaign(advertiser.client, { title: 'First' });
    second = await createCampaign(advertiser.client, { title: 'Second' });
    otherCampaign = await createCampaign(other.client);
    ads = {
      a: await createOffer(advertiser.client, first),
      b: await createOffer(advertiser.client, first),
      c: await createOffer(advertiser.client, second),
      foreign: await createOffer(other.client, otherCampaign),
    };
    const base = { siteId: 1, blockId: 1, device: 1 as const };
    await recordTraffic(server.server.context.db, [
      {
        ...base,
        at: at('2026-03-02'),
        campaignId: first,
        offerId: ads.a,
        views: 1000,
        clicks: 20,
        spendMicros: 4_000_000,
        conversions: { 1: 1, 2: 1 },
      },
      {
        ...base,
        at: at('2026-03-02'),
        campaignId: first,
        offerId: ads.b,
        views: 1000,
        clicks: 30,
        spendMicros: 6_000_000,
        conversions: { 3: 2 },
      },
      { ...base, at: at('2026-03-04'), campaignId: first, offerId: ads.a, views: 500, clicks: 10, spendMicros: 2_500_000 },
      {
        ...base,
        at: at('2026-03-06'),
        campaignId: second,
        offerId: ads.c,
        views: 400,
        clicks: 8,
        spendMicros: 1_600_000,
        conversions: { 1: 2 },
      },
      {
        ...base,
        at: at('2026-03-03'),
        campaignId: otherCampaign,
        offerId: ads.foreign,
        views: 99,
        clicks: 9,
        spendMicros: 900_000,
      },
    ]);
  });
  after(() => server.close());

  it('sums all own campaigns over the days with data when no period is given', async () => {
    assert.deepEqual(await stats(''), [
      {
        date: '2026-03-02/2026-03-06',
        views: 2900,
        clicks: 68,
        money: 14.1,
        orders: 6,
        authenticatedOrders: 6,
        pixelOrders: 0,
        cpm: 4.8621,
        cpo: 2.35,
        cr: 8.8235,
        cpc: 0.2074,
        ctr: 2.3448,
        served: 0,
        refundedClicks: 0,
        refundedSpend: 0,
        invalidClicks: 0,
        grossClicks: 68,
        netClicks: 68,
        netSpend: 14.1,
      },
    ]);
  });

  it('sums the campaigns of filter[id] over a given period', async () => {
    assert.deepEqual(await stats(`?filter[id]=${first}&filter[dateFrom]=2026-03-01&filter[dateTo]=2026-03-03`), [
      {
        date: '2026-03-01/2026-03-03',
        views: 2000,
        clicks: 50,
        money: 10,
        orders: 4,
        authenticatedOrders: 4,
        pixelOrders: 0,
        cpm: 5,
        cpo: 2.5,
        cr: 8,
        cpc: 0.2,
        ctr: 2.5,
        served: 0,
        refundedClicks: 0,
        refundedSpend: 0,
        invalidClicks: 0,
        grossClicks: 50,
        netClicks: 50,
        netSpend: 10,
      },
    ]);
    const both = await stats(`?filter[id]=${first},${second}&filter[dateFrom]=2026-03-04`);
    assert.deepEqual(
      both.map((row) => [row.date, row.views, row.money, row.orders]),
      [['2026-03-04/2026-03-06', 900, 4.1, 2]],
    );
    const purchases = await stats(`?filter[id]=${first},${second}&targetId=1`);
    assert.equal(purchases[0]?.orders, 3);
  });

  it('shows an open period without data up to today, with zeros', async () => {
    const empty = await createCampaign(advertiser.client, { title: 'Empty' });
    assert.deepEqual(await stats(`?filter[id]=${empty}`), [{ date: '2026-03-10/2026-03-10', ...NO_ADVERTISER_TRAFFIC }]);
    assert.equal((await stats(`?filter[id]=${empty}&filter[dateFrom]=2026-01-01`))[0]?.date, '2026-01-01/2026-03-10');
    assert.equal((await stats(`?filter[id]=${first}&filter[dateTo]=2026-03-31`))[0]?.date, '2026-03-02/2026-03-31');
  });

  it('gives one row per day with data with groupDate', async () => {
    const rows = await stats(`?filter[id]=${first},${second}&groupDate=1`);
    assert.deepEqual(
      rows.map((row) => [row.date, row.views, row.clicks, row.money, row.orders, row.cpc]),
      [
        ['2026-03-02', 2000, 50, 10, 4, 0.2],
        ['2026-03-04', 500, 10, 2.5, 0, 0.25],
        ['2026-03-06', 400, 8, 1.6, 2, 0.2],
      ],
    );
    assert.deepEqual(await stats(`?filter[id]=${second}&groupDate=true&filter[dateTo]=2026-03-05`), []);
  });

  it('answers in XML', async () => {
    const response = await advertiser.client.get(`/api/advertiser/statistics?filter[id]=${first}&groupDate=1`, {
      accept: 'application/xml',
    });
    assert.equal(response.status, 200);
    const rows = response.xml().item;
    assert.equal(rows.length, 2);
    assert.deepEqual([rows[0].date, rows[0].views, rows[0].money, rows[0].cr], ['2026-03-02', '2000', '10', '8']);
    const offers = await advertiser.client.get(`/api/advertiser/statistics?scope=offers&filter[id]=${ads.c}`, {
      accept: 'application/xml',
    });
    assert.deepEqual([offers.xml().item[0].id, offers.xml().item[0].views], [String(ads.c), '400']);
  });

  it('gives ad statistics one row per ad', async () => {
    assert.deepEqual(await stats(`?scope=offers&filter[id]=${ads.a}`), [
      {
        id: ads.a,
        date: '2026-03-02/2026-03-04',
        views: 1500,
        clicks: 30,
        money: 6.5,
        orders: 2,
        authenticatedOrders: 2,
        pixelOrders: 0,
        cpm: 4.3333,
        cpo: 3.25,
        cr: 6.6667,
        cpc: 0.2167,
        ctr: 2,
        served: 0,
        refundedClicks: 0,
        refundedSpend: 0,
        invalidClicks: 0,
        grossClicks: 30,
        netClicks: 30,
        netSpend: 6.5,
      },
    ]);
    const all = await stats('?scope=offers&filter[dateFrom]=2026-03-01&filter[dateTo]=2026-03-31');
    assert.deepEqual(
      all.map((row) => [row.id, row.date, row.views]),
      [
        [ads.a, '2026-03-01/2026-03-31', 1500],
        [ads.b, '2026-03-01/2026-03-31', 1000],
        [ads.c, '2026-03-01/2026-03-31', 400],
      ],
    );
    const byDay = await stats(`?scope=offers&filter[id]=${ads.a}&groupDate=1`);
    assert.deepEqual(
      byDay.map((row) => [row.id, row.date, row.views]),
      [
        [ads.a, '2026-03-02', 1000],
        [ads.a, '2026-03-04', 500],
      ],
    );
  });

  it('gives the ads of a campaign on one date, and requires filter[date] with filter[campaignId]', async () => {
    const day = await stats(`?scope=offers&filter[campaignId]=${first}&filter[date]=2026-03-02`);
    assert.deepEqual(
      day.map((row) => [row.id, row.date, row.views, row.orders]),
      [
        [ads.a, '2026-03-02/2026-03-02', 1000, 2],
        [ads.b, '2026-03-02/2026-03-02', 1000, 2],
      ],
    );
    // An ad and a campaign combine: the ad's rows within its own campaign, none within another.
    const own = await stats(`?scope=offers&filter[campaignId]=${first}&filter[id]=${ads.a}&filter[date]=2026-03-02`);
    assert.deepEqual(
      own.map((row) => [row.id, row.views]),
      [[ads.a, 1000]],
    );
    assert.deepEqual(await stats(`?scope=offers&filter[campaignId]=${second}&filter[id]=${ads.a}&filter[date]=2026-03-02`), []);
    const missing = await advertiser.client.get(`/api/advertiser/statistics?scope=offers&filter[campaignId]=${first}`);
    assert.equal(missing.status, 422);
    assert.deepEqual(fieldsOf(missing), ['filter[date]']);
  });

  it('keeps a deleted ad’s statistics', async () => {
    const ad = await createOffer(advertiser.client, second);
    await recordTraffic(server.server.context.db, [
      {
        siteId: 1,
        blockId: 1,
        device: 2,
        at: at('2026-03-07'),
        campaignId: second,
        offerId: ad,
        views: 10,
        clicks: 1,
        spendMicros: 500_000,
      },
    ]);
    assert.equal((await advertiser.client.delete(`/api/advertiser/offers/${ad}`)).status, 204);
    const campaign = await stats(`?filter[id]=${second}&filter[dateFrom]=2026-03-07`);
    assert.deepEqual([campaign[0]?.views, campaign[0]?.money], [10, 0.5]);
    const adRows = await stats(`?scope=offers&filter[id]=${ad}`);
    assert.deepEqual(
      adRows.map((row) => [row.id, row.views]),
      [[ad, 10]],
    );
  });

  it('rejects malformed filters naming them', async () => {
    const cases: [string, string][] = [
      ['filter[id]=1,x', 'filter[id]'],
      ['filter[dateFrom]=2026-13-01', 'filter[dateFrom]'],
      ['filter[dateFrom]=2026-03-05&filter[dateTo]=2026-03-01', 'filter[dateTo]'],
      ['scope=offers&filter[date]=03/02/2026', 'filter[date]'],
      ['scope=offers&filter[id]=1,2', 'filter[id]'],
      ['scope=offers&filter[campaignId]=abc&filter[date]=2026-03-02', 'filter[campaignId]'],
      ['scope=sites', 'scope'],
      ['groupDate=maybe', 'groupDate'],
      ['targetId=7', 'targetId'],
    ];
    for (const [query, field] of cases) {
      const response = await advertiser.client.get(`/api/advertiser/statistics?${query}`);
      assert.equal(response.status, 422, query);
      assert.deepEqual(fieldsOf(response), [field], query);
    }
  });

  it('answers 404 for another advertiser’s campaigns and ads, 403 for a publisher', async () => {
    assert.equal((await advertiser.client.get(`/api/advertiser/statistics?filter[id]=${first},${otherCampaign}`)).status, 404);
    assert.equal((await advertiser.client.get(`/api/advertiser/statistics?scope=offers&filter[id]=${ads.foreign}`)).status, 404);
    assert.equal(
      (
        await advertiser.client.get(
          `/api/advertiser/statistics?scope=offers&filter[campaignId]=${otherCampaign}&filter[date]=2026-03-03`,
        )
      ).status,
      404,
    );
    assert.deepEqual(
      (await stats('', other.client)).map((row) => row.views),
      [99],
    );
    assert.equal((await publisher.client.get('/api/advertiser/statistics')).status, 403);
  });
});

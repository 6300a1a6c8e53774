import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer, recordTraffic } from '../../helpers/fixtures.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../helpers/server.ts';

const XML = 'application/xml';
const DAY = 86_400_000;

type Account = Awaited<ReturnType<TestServer['createAccount']>>;

describe('GET /webmaster/statistic', () => {
  let server: TestServer;
  let publisher: Account;
  let other: Account;
  let advertiser: Account;
  const ids = { site1: 0, site2: 0, block1a: 0, block1b: 0, block2: 0, otherSite: 0, otherBlock: 0 };

  const addSite = async (account: Account, url: string) => {
    const response = await account.client.post('/api/webmaster/sites', { url, category_id: 1 });
    assert.equal(response.status, 201, response.text);
    return response.json().id as number;
  };
  const addBlock = async (account: Account, siteId: number, title: string) => {
    const response = await account.client.post(`/api/webmaster/sites/${siteId}/blocks`, { title });
    assert.equal(response.status, 201, response.text);
    return response.json().id as number;
  };

  before(async () => {
    server = await startTestServer();
    publisher = await server.createAccount('publisher');
    other = await server.createAccount('publisher');
    advertiser = await server.createAccount('advertiser');
    ids.site1 = await addSite(publisher, 'https://one.example.com');
    ids.site2 = await addSite(publisher, 'https://two.example.com');
    ids.block1a = await addBlock(publisher, ids.site1, 'Top');
    ids.block1b = await addBlock(publisher, ids.site1, 'Bottom');
    ids.block2 = await addBlock(publisher, ids.site2, 'Side');
    ids.otherSite = await addSite(other, 'https://other.example.com');
    ids.otherBlock = await addBlock(other, ids.otherSite, 'Theirs');

    const db = server.server.context.db;
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    const ad = { campaignId: campaign.id, offerId: offer.id };
    const march8 = TEST_EPOCH_MS - 2 * DAY;
    const march9 = TEST_EPOCH_MS - DAY;
    const march10 = TEST_EPOCH_MS;
    await recordTraffic(db, [
      // 2026-03-08: site 1 only, two blocks, two devices.
      {
        ...ad,
        at: march8,
        siteId: ids.site1,
        blockId: ids.block1a,
        device: 1,
        views: 300,
        clicks: 6,
        publisherIncomeMicros: 420_000,
      },
      {
        ...ad,
        at: march8,
        siteId: ids.site1,
        blockId: ids.block1a,
        device: 2,
        views: 100,
        clicks: 2,
        publisherIncomeMicros: 140_000,
      },
      { ...ad, at: march8, siteId: ids.site1, blockId: ids.block1b, device: 1, views: 200, clicks: 0 },
      // 2026-03-09: no traffic at all for this publisher.
      {
        ...ad,
        at: march9,
        siteId: ids.otherSite,
        blockId: ids.otherBlock,
        device: 1,
        views: 9999,
        clicks: 99,
        publisherIncomeMicros: 9_990_000,
      },
      // 2026-03-10: both sites, with an income that is not a whole number of cents.
      {
        ...ad,
        at: march10,
        siteId: ids.site1,
        blockId: ids.block1b,
        device: 3,
        views: 1000,
        clicks: 3,
        publisherIncomeMicros: 1_234_567,
      },
      {
        ...ad,
        at: march10,
        siteId: ids.site2,
        blockId: ids.block2,
        device: 1,
        views: 250,
        clicks: 5,
        publisherIncomeMicros: 500_000,
      },
      {
        ...ad,
        at: march10,
        siteId: ids.otherSite,
        blockId: ids.otherBlock,
        device: 1,
        views: 7,
        clicks: 1,
        publisherIncomeMicros: 70_000,
      },
    ]);
  });
  after(() => server.close());

  it('gives one row per day with traffic, lifetime without dates, only own traffic', async () => {
    const response = await publisher.client.get('/api/webmaster/statistic');
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), [
      {
        date: '2026-03-08',
        views: 600,
        clicks: 8,
        ctr: 1.3333,
        cpm: 0.9333,
        money: 56,
        income: 0.56,
        served: 0,
        refundedClicks: 0,
        refundedIncome: 0,
        invalidClicks: 0,
        grossClicks: 8,
        netClicks: 8,
        netIncome: 0.56,
      },
      {
        date: '2026-03-10',
        views: 1250,
        clicks: 8,
        ctr: 0.64,
        cpm: 1.3877,
        money: 173,
        income: 1.7346,
        served: 0,
        refundedClicks: 0,
        refundedIncome: 0,
        invalidClicks: 0,
        grossClicks: 8,
        netClicks: 8,
        netIncome: 1.7346,
      },
    ]);
  });

  it('answers in XML', async () => {
    const response = await publisher.client.get('/api/webmaster/statistic', { accept: XML });
    assert.equal(response.status, 200);
    assert.deepEqual(response.xml().item, [
      {
        date: '2026-03-08',
        views: '600',
        clicks: '8',
        ctr: '1.3333',
        cpm: '0.9333',
        money: '56',
        income: '0.56',
        served: '0',
        refundedClicks: '0',
        refundedIncome: '0',
        invalidClicks: '0',
        grossClicks: '8',
        netClicks: '8',
        netIncome: '0.56',
      },
      {
        date: '2026-03-10',
        views: '1250',
        clicks: '8',
        ctr: '0.64',
        cpm: '1.3877',
        money: '173',
        income: '1.7346',
        served: '0',
        refundedClicks: '0',
        refundedIncome: '0',
        invalidClicks: '0',
        grossClicks: '8',
        netClicks: '8',
        netIncome: '1.7346',
      },
    ]);
  });

  it('limits the rows to the period', async () => {
    const from = (await publisher.client.get('/api/webmaster/statistic?dateFrom=2026-03-09')).json();
    assert.deepEqual(
      from.map((row: { date: string }) => row.date),
      ['2026-03-10'],
    );
    const to = (await publisher.client.get('/api/webmaster/statistic?dateTo=2026-03-09')).json();
    assert.deepEqual(
      to.map((row: { date: string; views: number }) => [row.date, row.views]),
      [['2026-03-08', 600]],
    );
    const empty = (await publisher.client.get('/api/webmaster/statistic?dateFrom=2026-03-09&dateTo=2026-03-09')).json();
    assert.deepEqual(empty, []);
  });

  it('filters by sites and by blocks, and by both', async () => {
    const site2 = (await publisher.client.get(`/api/webmaster/statistic?siteIds=${ids.site2}`)).json();
    assert.deepEqual(site2, [
      {
        date: '2026-03-10',
        views: 250,
        clicks: 5,
        ctr: 2,
        cpm: 2,
        money: 50,
        income: 0.5,
        served: 0,
        refundedClicks: 0,
        refundedIncome: 0,
        invalidClicks: 0,
        grossClicks: 5,
        netClicks: 5,
        netIncome: 0.5,
      },
    ]);

    const both = (await publisher.client.get(`/api/webmaster/statistic?siteIds=${ids.site1},%20${ids.site2}`)).json();
    assert.deepEqual(
      both.map((row: { views: number }) => row.views),
      [600, 1250],
    );

    const blockA = (await publisher.client.get(`/api/webmaster/statistic?blockIds=${ids.block1a}`)).json();
    assert.deepEqual(blockA, [
      {
        date: '2026-03-08',
        views: 400,
        clicks: 8,
        ctr: 2,
        cpm: 1.4,
        money: 56,
        income: 0.56,
        served: 0,
        refundedClicks: 0,
        refundedIncome: 0,
        invalidClicks: 0,
        grossClicks: 8,
        netClicks: 8,
        netIncome: 0.56,
      },
    ]);

    const blocks = (await publisher.client.get(`/api/webmaster/statistic?blockIds=${ids.block1b},${ids.block2}`)).json();
    assert.deepEqual(
      blocks.map((row: { date: string; views: number; money: number }) => [row.date, row.views, row.money]),
      [
        ['2026-03-08', 200, 0],
        ['2026-03-10', 1250, 173],
      ],
    );

    const combined = (await publisher.client.get(`/api/webmaster/statistic?siteIds=${ids.site2}&blockIds=${ids.block1b}`)).json();
    assert.deepEqual(combined, []);

    const ignoredEmpty = (await publisher.client.get('/api/webmaster/statistic?siteIds=&blockIds=')).json();
    assert.equal(ignoredEmpty.length, 2);
  });

  it('rejects malformed id lists and dates with 422 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['siteIds=1,a', 'siteIds'],
      ['siteIds=1,,2', 'siteIds'],
      ['siteIds=-1', 'siteIds'],
      ['siteIds=0', 'siteIds'],
      ['blockIds=1;2', 'blockIds'],
      ['blockIds=99999999999', 'blockIds'],
      ['dateFrom=10.03.2026', 'dateFrom'],
      ['dateTo=2026-13-01', 'dateTo'],
    ];
    for (const [query, field] of cases) {
      const response = await publisher.client.get(`/api/webmaster/statistic?${query}`);
      assert.equal(response.status, 422, `${query}: ${response.text}`);
      assert.equal(response.json().errors[0].field, field, query);
    }
  });

  it("answers 404 for another publisher's or an unknown site or block", async () => {
    for (const query of [
      `siteIds=${ids.otherSite}`,
      `siteIds=${ids.site1},${ids.otherSite}`,
      `blockIds=${ids.otherBlock}`,
      `blockIds=${ids.block1a},${ids.otherBlock}`,
      'siteIds=999999',
      'blockIds=999999',
    ]) {
      const response = await publisher.client.get(`/api/webmaster/statistic?${query}`);
      assert.equal(response.status, 404, query);
    }
    const theirs = (await other.client.get(`/api/webmaster/statistic?siteIds=${ids.otherSite}`)).json();
    assert.deepEqual(
      theirs.map((row: { date: string; views: number }) => [row.date, row.views]),
      [
        ['2026-03-09', 9999],
        ['2026-03-10', 7],
      ],
    );
  });

  it('refuses an advertiser token with 403', async () => {
    assert.equal((await advertiser.client.get('/api/webmaster/statistic')).status, 403);
  });

  it('picks up new traffic recorded through the rollup', async () => {
    const db = server.server.context.db;
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    await recordTraffic(db, [
      {
        at: TEST_EPOCH_MS + 3 * DAY,
        campaignId: campaign.id,
        offerId: offer.id,
        siteId: ids.site2,
        blockId: ids.block2,
        device: 2,
        views: 10,
        clicks: 1,
        publisherIncomeMicros: 70_000,
      },
    ]);
    const rows = (await publisher.client.get(`/api/webmaster/statistic?siteIds=${ids.site2}&dateFrom=2026-03-13`)).json();
    assert.deepEqual(rows, [
      {
        date: '2026-03-13',
        views: 10,
        clicks: 1,
        ctr: 10,
        cpm: 7,
        money: 7,
        income: 0.07,
        served: 0,
        refundedClicks: 0,
        refundedIncome: 0,
        invalidClicks: 0,
        grossClicks: 1,
        netClicks: 1,
        netIncome: 0.07,
      },
    ]);
  });
});

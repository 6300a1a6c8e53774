import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEVICES } from '../../../../src/modules/statistics/vocabulary.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../../helpers/fixtures.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../../helpers/server.ts';
import { NO_ADVERTISER_TRAFFIC } from '../../../helpers/statistics.ts';

const DAY = 24 * 3600 * 1000;

/** The figures of the desktop traffic on the first site's first block, the only traffic there and the only desktop traffic. */
const desktopDayOnFirstBlock = {
  views: 1000,
  clicks: 20,
  money: 2,
  orders: 7,
  authenticatedOrders: 7,
  pixelOrders: 0,
  ctr: 2,
  cpm: 2,
  cpo: 0.2857,
  cr: 35,
  cpc: 0.1,
  served: 0,
  refundedClicks: 0,
  refundedSpend: 0,
  invalidClicks: 0,
  grossClicks: 20,
  netClicks: 20,
  netSpend: 2,
};

/** The figures of the tablet traffic on the second site, the only traffic there and the only tablet traffic. */
const tabletDayOnSecondSite = {
  views: 200,
  clicks: 4,
  money: 1,
  orders: 2,
  authenticatedOrders: 2,
  pixelOrders: 0,
  ctr: 2,
  cpm: 5,
  cpo: 0.5,
  cr: 50,
  cpc: 0.25,
  served: 0,
  refundedClicks: 0,
  refundedSpend: 0,
  invalidClicks: 0,
  grossClicks: 4,
  netClicks: 4,
  netSpend: 1,
};

describe('quality coefficients', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<TestServer['createAccount']>>;
  let stranger: Awaited<ReturnType<TestServer['createAccount']>>;
  let campaignId: number;
  let base: string;
  const sites = { s1: 0, s2: 0, s3: 0 };
  const blocks = { b1a: 0, b1b: 0, b2: 0 };

  before(async () => {
    server = await startTestServer();
    const db = server.server.context.db;
    owner = await server.createAccount('advertiser');
    stranger = await server.createAccount('advertiser');
    const publisher = await server.createAccount('publisher');
    const campaign = await insertCampaign(db, { advertiserId: owner.id });
    const otherCampaign = await insertCampaign(db, { advertiserId: stranger.id });
    campaignId = campaign.id;
    base = `/api/advertiser/campaigns/multipliers/${campaignId}`;
    const offer = await insertOffer(db, { campaignId });
    const otherOffer = await insertOffer(db, { campaignId: otherCampaign.id });
    sites.s1 = (await insertSite(db, { publisherId: publisher.id })).id;
    sites.s2 = (await insertSite(db, { publisherId: publisher.id })).id;
    sites.s3 = (await insertSite(db, { publisherId: publisher.id })).id;
    blocks.b1a = (await insertBlock(db, { siteId: sites.s1 })).id;
    blocks.b1b = (await insertBlock(db, { siteId: sites.s1 })).id;
    blocks.b2 = (await insertBlock(db, { siteId: sites.s2 })).id;
    const common = { campaignId, offerId: offer.id };
    await recordTraffic(db, [
      {
        ...common,
        at: TEST_EPOCH_MS,
        siteId: sites.s1,
        blockId: blocks.b1a,
        device: DEVICES.desktop,
        views: 1000,
        clicks: 20,
        spendMicros: 2_000_000,
        conversions: { 1: 2, 2: 1, 3: 4 },
      },
      {
        ...common,
        at: TEST_EPOCH_MS,
        siteId: sites.s1,
        blockId: blocks.b1b,
        device: DEVICES.mobile,
        views: 500,
        clicks: 5,
        spendMicros: 500_000,
        conversions: { 1: 1 },
      },
      {
        ...common,
        at: TEST_EPOCH_MS - DAY,
        siteId: sites.s2,
        blockId: blocks.b2,
        device: DEVICES.tablet,
        views: 200,
        clicks: 4,
        spendMicros: 1_000_000,
        conversions: { 2: 2 },
      },
      // Another advertiser's traffic on the third site: never part of this campaign's figures.
      {
        campaignId: otherCampaign.id,
        offerId: otherOffer.id,
        at: TEST_EPOCH_MS,
        siteId: sites.s3,
        blockId: 0,
        device: DEVICES.desktop,
        views: 99,
        clicks: 9,
        spendMicros: 900_000,
      },
    ]);
  });
  after(() => server.close());

  it('lists site statistics of sites with traffic, with the default coefficient', async () => {
    const response = await owner.client.get(base);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json(), [
      {
        site_id: String(sites.s1),
        views: 1500,
        clicks: 25,
        money: 2.5,
        orders: 8,
        authenticatedOrders: 8,
        pixelOrders: 0,
        ctr: 1.6667,
        cpm: 1.6667,
        cpo: 0.3125,
        cr: 32,
        cpc: 0.1,
        served: 0,
        refundedClicks: 0,
        refundedSpend: 0,
        invalidClicks: 0,
        grossClicks: 25,
        netClicks: 25,
        netSpend: 2.5,
        coef: 1,
      },
      {
        site_id: String(sites.s2),
        ...tabletDayOnSecondSite,
        coef: 1,
      },
    ]);
  });

  it('sets site and block coefficients (block_id 0 = whole site) and reads them back', async () => {
    const whole = await owner.client.put(`${base}/site/${sites.s1}`, { coef: 1.5 });
    assert.equal(whole.status, 200, whole.text);
    assert.deepEqual(whole.json(), { coef: 1.5, campaignId, siteId: sites.s1, deviceId: 0, informerId: 0 });
    const block = await owner.client.put(`${base}/site/${sites.s1}s${blocks.b1a}`, { coef: 0.5 });
    assert.deepEqual(block.json(), { coef: 0.5, campaignId, siteId: sites.s1, deviceId: 0, informerId: blocks.b1a });
    const xml = await owner.client.put(`${base}/site/${sites.s3}`, undefined, {
      raw: '<request><coef>2</coef></request>',
      contentType: 'application/xml',
      accept: 'application/xml',
    });
    assert.equal(xml.status, 200, xml.text);
    assert.deepEqual(xml.xml(), {
      coef: '2',
      campaignId: String(campaignId),
      siteId: String(sites.s3),
      deviceId: '0',
      informerId: '0',
    });
    const rounded = await owner.client.put(`${base}/site/${sites.s3}`, { coef: 2.00004 });
    assert.equal(rounded.json().coef, 2);

    const rows = await server.server.context.db
      .selectFrom('site_coefficients')
      .select(['site_id', 'block_id', 'coef'])
      .where('campaign_id', '=', campaignId)
      .orderBy('site_id')
      .orderBy('block_id')
      .execute();
    assert.deepEqual(rows, [
      { site_id: sites.s1, block_id: 0, coef: 1.5 },
      { site_id: sites.s1, block_id: blocks.b1a, coef: 0.5 },
      { site_id: sites.s3, block_id: 0, coef: 2 },
    ]);

    const all = await owner.client.get(`${base}/site`);
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.json().map((row: { siteId: number; informerId: number; coef: number }) => [row.siteId, row.informerId, row.coef]),
      [
        [sites.s1, 0, 1.5],
        [sites.s1, blocks.b1a, 0.5],
        [sites.s3, 0, 2],
      ],
    );
    const ofSite = await owner.client.get(`${base}/site/${sites.s1}`, { accept: 'application/xml' });
    assert.deepEqual(
      ofSite.xml().item.map((row: { informerId: string; coef: string }) => [row.informerId, row.coef]),
      [
        ['0', '1.5'],
        [String(blocks.b1a), '0.5'],
      ],
    );
    const unset = await owner.client.get(`${base}/site/${sites.s2}`);
    assert.deepEqual(unset.json(), [{ coef: 1, campaignId, siteId: sites.s2, deviceId: 0, informerId: 0 }]);
    const unsetBlock = await owner.client.get(`${base}/site/${sites.s1}s${blocks.b1b}`);
    assert.deepEqual(unsetBlock.json(), [{ coef: 1, campaignId, siteId: sites.s1, deviceId: 0, informerId: blocks.b1b }]);
  });

  it('lists sites with traffic or a coefficient, and a row per block with its own coefficient', async () => {
    const response = await owner.client.get(base);
    assert.equal(response.status, 200);
    const rows = response.json();
    assert.deepEqual(
      rows.map((row: { site_id: string; views: number; orders: number; coef: number }) => [
        row.site_id,
        row.views,
        row.orders,
        row.coef,
      ]),
      [
        [String(sites.s1), 1500, 8, 1.5],
        [`${sites.s1}s${blocks.b1a}`, 1000, 7, 0.5],
        [String(sites.s2), 200, 2, 1],
        [String(sites.s3), 0, 0, 2],
      ],
    );
    assert.deepEqual(rows[1], {
      site_id: `${sites.s1}s${blocks.b1a}`,
      ...desktopDayOnFirstBlock,
      coef: 0.5,
    });
    assert.deepEqual(rows[3], {
      site_id: String(sites.s3),
      ...NO_ADVERTISER_TRAFFIC,
      coef: 2,
    });

    const today = await owner.client.get(`${base}?dateFrom=2026-03-10&dateTo=2026-03-10`);
    assert.deepEqual(
      today.json().map((row: { site_id: string }) => row.site_id),
      [String(sites.s1), `${sites.s1}s${blocks.b1a}`, String(sites.s3)],
    );
    const yesterday = await owner.client.get(`${base}?dateTo=2026-03-09`);
    assert.deepEqual(
      yesterday.json().map((row: { site_id: string; views: number }) => [row.site_id, row.views]),
      [
        [String(sites.s1), 0],
        [`${sites.s1}s${blocks.b1a}`, 0],
        [String(sites.s2), 200],
        [String(sites.s3), 0],
      ],
    );
    const orders = async (targetId: number) =>
      (await owner.client.get(`${base}?targetId=${targetId}`)).json().map((row: { orders: number }) => row.orders);
    assert.deepEqual(await orders(1), [3, 2, 0, 0]);
    assert.deepEqual(await orders(2), [1, 1, 2, 0]);
    assert.deepEqual(await orders(3), [4, 4, 0, 0]);

    const paged = await owner.client.get(`${base}?per-page=2&page=2`, { accept: 'application/xml' });
    assert.equal(paged.header('x-pagination-total-count'), '4');
    assert.deepEqual(
      paged.xml().item.map((row: { site_id: string }) => row.site_id),
      [String(sites.s2), String(sites.s3)],
    );
  });

  it('sets device coefficients by name or number and always lists the three device types', async () => {
    const mobile = await owner.client.put(`${base}/device/mobile`, { coef: 1.2 });
    assert.equal(mobile.status, 200, mobile.text);
    assert.deepEqual(mobile.json(), { coef: 1.2, campaignId, siteId: 0, deviceId: 2, informerId: 0 });
    const tablet = await owner.client.put(`${base}/device/3`, { coef: 0.8 }, { accept: 'application/xml' });
    assert.equal(tablet.xml().deviceId, '3');
    assert.equal((await owner.client.put(`${base}/device/TABLET`, { coef: 0.7 })).json().coef, 0.7);

    const response = await owner.client.get(`${base}/device`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), [
      {
        device: 'desktop',
        ...desktopDayOnFirstBlock,
        coef: 1,
      },
      {
        device: 'mobile',
        views: 500,
        clicks: 5,
        money: 0.5,
        orders: 1,
        authenticatedOrders: 1,
        pixelOrders: 0,
        ctr: 1,
        cpm: 1,
        cpo: 0.5,
        cr: 20,
        cpc: 0.1,
        served: 0,
        refundedClicks: 0,
        refundedSpend: 0,
        invalidClicks: 0,
        grossClicks: 5,
        netClicks: 5,
        netSpend: 0.5,
        coef: 1.2,
      },
      {
        device: 'tablet',
        ...tabletDayOnSecondSite,
        coef: 0.7,
      },
    ]);
    const today = await owner.client.get(`${base}/device?dateFrom=2026-03-10&targetId=1`, { accept: 'application/xml' });
    const items = today.xml().item;
    assert.deepEqual(
      items.map((row: { device: string; views: string; orders: string; coef: string }) => [
        row.device,
        row.views,
        row.orders,
        row.coef,
      ]),
      [
        ['desktop', '1000', '2', '1'],
        ['mobile', '500', '1', '1.2'],
        ['tablet', '0', '0', '0.7'],
      ],
    );
  });

  it('refuses coefficients outside 0.1..10 and bad filters with 422 naming the field', async () => {
    for (const coef of [0.09, 10.01, -1, 'x', null]) {
      const response = await owner.client.put(`${base}/site/${sites.s2}`, { coef });
      assert.equal(response.status, 422, `coef ${coef}`);
      assert.equal(response.json().errors[0].field, 'coef');
    }
    const missing = await owner.client.put(`${base}/device/desktop`, {});
    assert.equal(missing.status, 422);
    assert.equal(missing.json().errors[0].field, 'coef');
    assert.equal((await owner.client.put(`${base}/site/${sites.s2}`, { coef: 0.1 })).json().coef, 0.1);
    assert.equal((await owner.client.put(`${base}/site/${sites.s2}`, { coef: 10 })).json().coef, 10);
    const badDate = await owner.client.get(`${base}?dateFrom=2026-02-30`);
    assert.equal(badDate.status, 422);
    assert.equal(badDate.json().errors[0].field, 'dateFrom');
    const badTarget = await owner.client.get(`${base}/device?targetId=4`);
    assert.equal(badTarget.status, 422);
    assert.equal(badTarget.json().errors[0].field, 'targetId');
  });

  it('answers 404 for unknown sites, blocks of another site and unknown device types', async () => {
    const paths = [
      `${base}/site/999999`,
      `${base}/site/${sites.s1}s${blocks.b2}`,
      `${base}/site/${sites.s1}s0`,
      `${base}/site/${sites.s1}s999999`,
      `${base}/site/abc`,
      `${base}/site/${sites.s1}x${blocks.b1a}`,
    ];
    for (const path of paths) {
      assert.equal((await owner.client.put(path, { coef: 1 })).status, 404, path);
      assert.equal((await owner.client.get(path)).status, 404, path);
    }
    assert.equal((await owner.client.put(`${base}/device/laptop`, { coef: 1 })).status, 404);
    assert.equal((await owner.client.put(`${base}/device/4`, { coef: 1 })).status, 404);
    assert.equal((await owner.client.get('/api/advertiser/campaigns/multipliers/999999')).status, 404);
  });

  it("hides another advertiser's campaign (404) and refuses publishers (403)", async () => {
    const publisher = await server.createAccount('publisher');
    const requests = [
      (client: typeof owner.client) => client.get(base),
      (client: typeof owner.client) => client.get(`${base}/device`),
      (client: typeof owner.client) => client.get(`${base}/site`),
      (client: typeof owner.client) => client.get(`${base}/site/${sites.s1}`),
      (client: typeof owner.client) => client.put(`${base}/site/${sites.s1}`, { coef: 3 }),
      (client: typeof owner.client) => client.put(`${base}/device/desktop`, { coef: 3 }),
    ];
    for (const send of requests) {
      assert.equal((await send(stranger.client)).status, 404);
      assert.equal((await send(publisher.client)).status, 403);
    }
    // Nothing the stranger sent changed the owner's coefficients.
    const coefficients = await owner.client.get(`${base}/site/${sites.s1}`);
    assert.equal(coefficients.json()[0].coef, 1.5);
  });
});

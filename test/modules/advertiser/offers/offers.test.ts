import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { costText } from '../../../../src/modules/advertiser/offers/discount-types.ts';
import { createCampaign, createOffer, fieldsOf, offerFields } from '../../../helpers/advertiser.ts';
import { recordTraffic } from '../../../helpers/fixtures.ts';
import type { TestClient } from '../../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { NO_ADVERTISER_TRAFFIC } from '../../../helpers/statistics.ts';

const at = (day: string) => Date.parse(`${day}T10:00:00Z`);

describe('cost text', () => {
  const cases: [Parameters<typeof costText>[0], string][] = [
    [{ price: null, oldPrice: null, discount: null, discountType: null }, ''],
    [{ price: 1990, oldPrice: null, discount: null, discountType: null }, '1990'],
    [{ price: 1990, oldPrice: 2990, discount: 1, discountType: 'percent' }, '1990 (was 2990) -33%'],
    [{ price: 1990, oldPrice: 2990, discount: 1, discountType: 'amount' }, '1990 (was 2990) -1000'],
    [{ price: 500, oldPrice: null, discount: 2, discountType: null }, 'from 500'],
    [{ price: 500, oldPrice: null, discount: 3, discountType: 'free_shipping' }, 'up to 500 + free shipping'],
    [{ price: 500, oldPrice: 500, discount: 1, discountType: 'gift' }, '500 + gift'],
    [{ price: 80, oldPrice: 100, discount: 2, discountType: 'sale' }, 'from 80 (was 100) sale'],
  ];
  for (const [inputs, expected] of cases) {
    it(`${JSON.stringify(inputs)} reads "${expected}"`, () => assert.equal(costText(inputs), expected));
  }
});

describe('advertiser ads', () => {
  let server: TestServer;
  let advertiser: { id: number; client: TestClient };
  let other: { id: number; client: TestClient };
  let publisher: { client: TestClient };
  let campaignId: number;

  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
    other = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
    campaignId = await createCampaign(advertiser.client, { title: 'Audio', category_id: 2, geo: 'DE' });
  });
  after(() => server.close());

  it('lists discount types of an own campaign only', async () => {
    const response = await advertiser.client.get(`/api/advertiser/discountType/${campaignId}`);
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.json().map((type: { id: string }) => type.id),
      ['percent', 'amount', 'free_shipping', 'gift', 'sale'],
    );
    assert.equal(typeof response.json()[0].title, 'string');
    const xml = await advertiser.client.get(`/api/advertiser/discountType/${campaignId}`, { accept: 'application/xml' });
    assert.equal(xml.xml().item[0].id, 'percent');
    assert.equal((await other.client.get(`/api/advertiser/discountType/${campaignId}`)).status, 404);
    assert.equal((await publisher.client.get(`/api/advertiser/discountType/${campaignId}`)).status, 403);
  });

  it('creates an ad with every field of the spec', async () => {
    const response = await advertiser.client.post(
      '/api/advertiser/offers',
      await offerFields(campaignId, { url_mobile: 'http://m.shop.example.test/h' }),
    );
    assert.equal(response.status, 201, response.text);
    const ad = response.json();
    assert.equal(response.header('location'), `${server.url}/api/advertiser/offers/${ad.id}`);
    const { img, img_wide: imgWide, ...rest } = ad;
    assert.deepEqual(rest, {
      id: ad.id,
      title: 'Noise-cancelling headphones',
      campaignId,
      isRetarget: false,
      opis: 'Noise-cancelling headphones',
      cost: '1990 (was 2990) -33%',
      url: 'https://shop.example.test/headphones',
      url_mobile: 'http://m.shop.example.test/h',
      stavka: 0.25,
      active: true,
      status: 0,
      ...NO_ADVERTISER_TRAFFIC,
    });
    assert.match(img.url, /^https:\/\/127\.0\.0\.1:\d+\/api\/img\/[0-9a-f]{64}\/328x328\.jpg$/);
    assert.equal(img.allowedSizes, '328x328,150x150');
    assert.equal(img.pattern, img.url.replace('328x328', '{width}x{height}'));
    assert.match(imgWide.url, /\/492x328\.jpg$/);
    assert.equal(imgWide.allowedSizes, '492x328,300x200');
  });

  it('creates an ad from an XML body with a title of its own', async () => {
    const fields = await offerFields(campaignId, {
      title: 'Headphones X',
      discount: 2,
      discountType: 'free_shipping',
      oldPrice: undefined,
    });
    const xmlBody = `<request>${Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `<${key}>${String(value)}</${key}>`)
      .join('')}</request>`;
    const response = await advertiser.client.request('POST', '/api/advertiser/offers', {
      raw: xmlBody,
      contentType: 'application/xml',
      accept: 'application/xml',
    });
    assert.equal(response.status, 201, response.text);
    const ad = response.xml();
    assert.equal(ad.title, 'Headphones X');
    assert.equal(ad.opis, 'Noise-cancelling headphones');
    assert.equal(ad.cost, 'from 1990 + free shipping');
    assert.equal(ad.stavka, '0.25');
    assert.equal(ad.img.allowedSizes, '328x328,150x150');
  });

  it('rejects every out-of-range or mistyped parameter naming the field', async () => {
    const otherCampaign = await createCampaign(other.client);
    const cases: [Record<string, unknown>, string][] = [
      [{ description: 'x'.repeat(61) }, 'description'],
      [{ description: '   ' }, 'description'],
      [{ url: 'ftp://shop.example.test/' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url_mobile: 'javascript:alert(1)' }, 'url_mobile'],
      [{ price: 'cheap' }, 'price'],
      [{ price: -1 }, 'price'],
      [{ price: 1.5 }, 'price'],
      [{ oldPrice: 1000 }, 'oldPrice'],
      [{ discount: 4 }, 'discount'],
      [{ discountType: 'bogus' }, 'discountType'],
      [{ discountType: 'amount', oldPrice: undefined }, 'oldPrice'],
      [{ subCategory: 301 }, 'subCategory'],
      [{ subCategory: 2 }, 'subCategory'],
      [{ clickPrice: 0 }, 'clickPrice'],
      [{ clickPrice: -0.5 }, 'clickPrice'],
      [{ clickPrice: '0.12345' }, 'clickPrice'],
      [{ clickPrice: 1000.01 }, 'clickPrice'],
      [{ clickPrice: 'abc' }, 'clickPrice'],
      [{ campaignId: otherCampaign }, 'campaignId'],
      [{ campaignId: 'x' }, 'campaignId'],
      [{ rectangle: undefined }, 'rectangle'],
      [{ square: 'https://example.test/a.png' }, 'square'],
      [{ color: 'red' }, 'color'],
    ];
    for (const [overrides, field] of cases) {
      const body = await offerFields(campaignId, overrides);
      for (const key of Object.keys(overrides)) if (overrides[key] === undefined) delete body[key];
      const response = await advertiser.client.post('/api/advertiser/offers', body);
      assert.equal(response.status, 422, `${JSON.stringify(overrides)}: ${response.text}`);
      assert.deepEqual(fieldsOf(response), [field], JSON.stringify(overrides));
    }
  });

  it('allows 100 characters of description when the campaign targets Thailand', async () => {
    const thai = await createCampaign(advertiser.client, { geo: ['VN', 'TH'] });
    await createOffer(advertiser.client, thai, { description: 'ก'.repeat(100) });
    const tooLong = await advertiser.client.post(
      '/api/advertiser/offers',
      await offerFields(thai, { description: 'ก'.repeat(101) }),
    );
    assert.deepEqual(fieldsOf(tooLong), ['description']);
    await createOffer(advertiser.client, campaignId, { description: 'é'.repeat(60) });
  });

  it('reads an ad with statistics for a period and a goal, in JSON and XML', async () => {
    const id = await createOffer(advertiser.client, campaignId);
    await recordTraffic(server.server.context.db, [
      {
        at: at('2026-03-02'),
        campaignId,
        offerId: id,
        siteId: 1,
        blockId: 1,
        device: 1,
        views: 2000,
        clicks: 40,
        spendMicros: 8_000_000,
        conversions: { 1: 4, 2: 1 },
      },
      {
        at: at('2026-03-03'),
        campaignId,
        offerId: id,
        siteId: 1,
        blockId: 1,
        device: 2,
        views: 1000,
        clicks: 10,
        spendMicros: 2_000_000,
        conversions: { 1: 1 },
      },
    ]);
    const lifetime = (await advertiser.client.get(`/api/advertiser/offers/${id}`)).json();
    assert.deepEqual(
      [
        lifetime.views,
        lifetime.clicks,
        lifetime.money,
        lifetime.orders,
        lifetime.cpm,
        lifetime.cpc,
        lifetime.cr,
        lifetime.cpo,
        lifetime.ctr,
      ],
      [3000, 50, 10, 6, 3.3333, 0.2, 12, 1.6667, 1.6667],
    );
    const day = (
      await advertiser.client.get(`/api/advertiser/offers/${id}?dateFrom=2026-03-02&dateTo=2026-03-02&targetId=1`)
    ).json();
    assert.deepEqual([day.views, day.clicks, day.money, day.orders, day.cpo, day.cr], [2000, 40, 8, 4, 2, 10]);
    const xml = await advertiser.client.get(`/api/advertiser/offers/${id}?dateFrom=2026-03-03`, { accept: 'application/xml' });
    assert.equal(xml.status, 200);
    assert.equal(xml.xml().views, '1000');
    assert.equal(xml.xml().cpm, '2');
    assert.equal(xml.xml().img.allowedSizes, '328x328,150x150');
    const bad = await advertiser.client.get(`/api/advertiser/offers/${id}?dateTo=yesterday`);
    assert.deepEqual(fieldsOf(bad), ['dateTo']);
    assert.deepEqual(fieldsOf(await advertiser.client.get(`/api/advertiser/offers/${id}?targetId=9`)), ['targetId']);
  });

  it('switches an ad off and on (204)', async () => {
    const id = await createOffer(advertiser.client, campaignId);
    const off = await advertiser.client.put(`/api/advertiser/offers/${id}`, { active: false });
    assert.equal(off.status, 204);
    assert.equal(off.text, '');
    assert.equal((await advertiser.client.get(`/api/advertiser/offers/${id}`)).json().active, false);
    const on = await advertiser.client.request('PUT', `/api/advertiser/offers/${id}`, {
      raw: '<request><active>1</active></request>',
      contentType: 'application/xml',
      accept: 'application/xml',
    });
    assert.equal(on.status, 204);
    assert.equal((await advertiser.client.get(`/api/advertiser/offers/${id}`)).json().active, true);
    assert.deepEqual(fieldsOf(await advertiser.client.put(`/api/advertiser/offers/${id}`, {})), ['active']);
    assert.deepEqual(fieldsOf(await advertiser.client.put(`/api/advertiser/offers/${id}`, { active: 'on' })), ['active']);
    assert.deepEqual(fieldsOf(await advertiser.client.put(`/api/advertiser/offers/${id}`, { active: true, stavka: 2 })), [
      'stavka',
    ]);
  });

  it('changes an ad’s bid after creation; the ad stays approved', async () => {
    const id = await createOffer(advertiser.client, campaignId);
    const db = server.server.context.db;
    await db.updateTable('offers').set({ moderation_status: 1 }).where('id', '=', id).execute();
    const changed = await advertiser.client.put(`/api/advertiser/offers/${id}`, { clickPrice: '0.2575' });
    assert.equal(changed.status, 204, changed.text);
    const ad = (await advertiser.client.get(`/api/advertiser/offers/${id}`)).json<{ stavka: number; status: number }>();
    assert.equal(ad.stavka, 0.2575);
    const row = await db
      .selectFrom('offers')
      .select(['bid_micros', 'moderation_status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.bid_micros), 257_500);
    assert.equal(row.moderation_status, 1, 'a bid is not content');
    // Out of bounds: a 422 naming the field, and the bid stays.
    for (const clickPrice of [0, -1, 1001, '0.00001']) {
      const refused = await advertiser.client.put(`/api/advertiser/offers/${id}`, { clickPrice, active: false });
      assert.deepEqual(fieldsOf(refused), ['clickPrice'], String(clickPrice));
    }
    const after = (await advertiser.client.get(`/api/advertiser/offers/${id}`)).json<{ stavka: number; active: boolean }>();
    assert.equal(after.stavka, 0.2575);
    assert.equal(after.active, true, 'a refused change changes nothing');
    assert.equal((await other.client.put(`/api/advertiser/offers/${id}`, { clickPrice: 1 })).status, 404);
  });

  it('changes an ad’s price after creation: the teaser’s text is made again and the ad goes back to moderation', async () => {
    const id = await createOffer(advertiser.client, campaignId);
    const db = server.server.context.db;
    await db.updateTable('offers').set({ moderation_status: 1 }).where('id', '=', id).execute();
    const cost = async () => (await advertiser.client.get(`/api/advertiser/offers/${id}`)).json<{ cost: string }>().cost;
    assert.equal(await cost(), '1990 (was 2990) -33%');

    const cheaper = await advertiser.client.put(`/api/advertiser/offers/${id}`, { price: 1495 });
    assert.equal(cheaper.status, 204, cheaper.text);
    assert.equal(await cost(), '1495 (was 2990) -50%', 'the new price over the ad’s own old price and discount');
    const row = await db.selectFrom('offers').select('moderation_status').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.moderation_status, 0, 'a price is content: back to moderation');

    // A refused change names its field and changes nothing.
    assert.deepEqual(fieldsOf(await advertiser.client.put(`/api/advertiser/offers/${id}`, { discountType: 'bogus' })), [
      'discountType',
    ]);
    assert.deepEqual(fieldsOf(await advertiser.client.put(`/api/advertiser/offers/${id}`, { oldPrice: null })), ['oldPrice']);
    assert.deepEqual(fieldsOf(await advertiser.client.put(`/api/advertiser/offers/${id}`, { price: -5 })), ['price']);
    assert.equal(await cost(), '1495 (was 2990) -50%');

    const plain = await advertiser.client.put(`/api/advertiser/offers/${id}`, {
      price: null,
      oldPrice: null,
      discountType: null,
    });
    assert.equal(plain.status, 204, plain.text);
    assert.equal(await cost(), '', 'no price: the teaser shows none');
  });

  it('deletes an ad: 404 afterwards, statistics kept in the campaign', async () => {
    const id = await createOffer(advertiser.client, campaignId);
    await recordTraffic(server.server.context.db, [
      {
        at: at('2026-03-04'),
        campaignId,
        offerId: id,
        siteId: 2,
        blockId: 2,
        device: 1,
        views: 7,
        clicks: 1,
        spendMicros: 300_000,
      },
    ]);
    const before = (
      await advertiser.client.get(`/api/advertiser/campaigns/${campaignId}?dateFrom=2026-03-04&dateTo=2026-03-04`)
    ).json();
    assert.equal((await advertiser.client.delete(`/api/advertiser/offers/${id}`)).status, 204);
    assert.equal((await advertiser.client.get(`/api/advertiser/offers/${id}`)).status, 404);
    assert.equal((await advertiser.client.put(`/api/advertiser/offers/${id}`, { active: true })).status, 404);
    assert.equal((await advertiser.client.delete(`/api/advertiser/offers/${id}`)).status, 404);
    const afterwards = (
      await advertiser.client.get(`/api/advertiser/campaigns/${campaignId}?dateFrom=2026-03-04&dateTo=2026-03-04`)
    ).json();
    assert.equal(afterwards.views, 7);
    assert.equal(afterwards.money, 0.3);
    assert.equal(afterwards.items, before.items - 1);
  });

  it('hides other advertisers’ ads (404) and refuses publishers (403)', async () => {
    const id = await createOffer(advertiser.client, campaignId);
    assert.equal((await other.client.get(`/api/advertiser/offers/${id}`)).status, 404);
    assert.equal((await other.client.put(`/api/advertiser/offers/${id}`, { active: false })).status, 404);
    assert.equal((await other.client.delete(`/api/advertiser/offers/${id}`)).status, 404);
    assert.equal((await advertiser.client.get(`/api/advertiser/offers/${id}`)).json().active, true);
    assert.equal((await publisher.client.get(`/api/advertiser/offers/${id}`)).status, 403);
    assert.equal((await publisher.client.post('/api/advertiser/offers', await offerFields(campaignId))).status, 403);
    assert.equal((await publisher.client.put(`/api/advertiser/offers/${id}`, { active: false })).status, 403);
    assert.equal((await publisher.client.delete(`/api/advertiser/offers/${id}`)).status, 403);
  });
});

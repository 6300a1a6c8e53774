import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer } from '../../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

describe("sorting and searching the advertiser's ad list on the server", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('sorts by title, bid or creation either way, searches titles and texts in any case, by campaign, and pages the result', async () => {
    const advertiser = await server.createAccount('advertiser');
    const db = server.server.context.db;
    const shoes = await insertCampaign(db, { advertiserId: advertiser.id, title: 'Shoes' });
    const coats = await insertCampaign(db, { advertiserId: advertiser.id, title: 'Coats' });
    const ads = [
      { campaignId: shoes.id, title: 'Winter boots', bidMicros: 300_000 },
      { campaignId: coats.id, title: 'autumn coats', bidMicros: 150_000 },
      { campaignId: shoes.id, title: 'Summer 100% sale', bidMicros: 450_000 },
      { campaignId: coats.id, title: 'Winter parka', bidMicros: 100_000 },
    ];
    for (const ad of ads) await insertOffer(db, ad);
    const other = await insertCampaign(db, { advertiserId: (await server.createAccount('advertiser')).id });
    await insertOffer(db, { campaignId: other.id, title: 'Winter of another' });
    const titles = async (query: string) =>
      (await advertiser.client.get(`/api/advertiser/offers?${query}`)).json<{ title: string }[]>().map((row) => row.title);

    assert.deepEqual(await titles(''), ['Winter boots', 'autumn coats', 'Summer 100% sale', 'Winter parka']);
    assert.deepEqual(await titles('sort=title'), ['autumn coats', 'Summer 100% sale', 'Winter boots', 'Winter parka']);
    assert.deepEqual(await titles('sort=-title'), ['Winter parka', 'Winter boots', 'Summer 100% sale', 'autumn coats']);
    assert.deepEqual(await titles('sort=-stavka'), ['Summer 100% sale', 'Winter boots', 'autumn coats', 'Winter parka']);
    assert.deepEqual(await titles('sort=-created'), ['Winter parka', 'Summer 100% sale', 'autumn coats', 'Winter boots']);
    assert.deepEqual(
      await titles('q=winter&sort=title'),
      ['Winter boots', 'Winter parka'],
      "another advertiser's ad is not found",
    );
    assert.deepEqual(await titles(`q=winter&campaignId=${coats.id}`), ['Winter parka']);
    assert.deepEqual(await titles(`q=${encodeURIComponent('100%')}`), ['Summer 100% sale'], '% is taken literally');
    assert.deepEqual(await titles('q=_'), []);

    const paged = await advertiser.client.get('/api/advertiser/offers?q=WINTER&sort=-title&per-page=1&page=2');
    assert.deepEqual(
      paged.json().map((row: { title: string; stavka: number }) => [row.title, row.stavka]),
      [['Winter boots', 0.3]],
    );
    assert.equal(paged.header('x-pagination-total-count'), '2');

    const wrong = await advertiser.client.get('/api/advertiser/offers?sort=clicks');
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json().errors[0].field, 'sort');
  });
});

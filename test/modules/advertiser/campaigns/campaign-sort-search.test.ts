import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign } from '../../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

describe('sorting and searching the campaign list on the server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('sorts by title or creation either way, searches titles in any case, and pages the result', async () => {
    const advertiser = await server.createAccount('advertiser');
    const db = server.server.context.db;
    for (const title of ['Winter boots', 'autumn coats', 'Summer 100% sale', 'Winter hats']) {
      await insertCampaign(db, { advertiserId: advertiser.id, title });
    }
    await insertCampaign(db, { advertiserId: (await server.createAccount('advertiser')).id, title: 'Winter of another' });
    const titles = async (query: string) =>
      (await advertiser.client.get(`/api/advertiser/campaigns?${query}`)).json<{ title: string }[]>().map((row) => row.title);

    assert.deepEqual(await titles('sort=title'), ['autumn coats', 'Summer 100% sale', 'Winter boots', 'Winter hats']);
    assert.deepEqual(await titles('sort=-title'), ['Winter hats', 'Winter boots', 'Summer 100% sale', 'autumn coats']);
    assert.deepEqual(await titles('sort=-created'), ['Winter hats', 'Summer 100% sale', 'autumn coats', 'Winter boots']);
    assert.deepEqual(await titles('q=winter&sort=title'), ['Winter boots', 'Winter hats']);
    assert.deepEqual(await titles(`q=${encodeURIComponent('100%')}`), ['Summer 100% sale'], '% is taken literally');
    assert.deepEqual(await titles('q=_'), []);

    const paged = await advertiser.client.get('/api/advertiser/campaigns?q=WINTER&sort=-title&per-page=1&page=2');
    assert.deepEqual(
      paged.json().map((row: { title: string }) => row.title),
      ['Winter boots'],
    );
    assert.equal(paged.header('x-pagination-total-count'), '2');
    const xml = await advertiser.client.get('/api/advertiser/campaigns?sort=title', { accept: 'application/xml' });
    assert.equal(xml.xml().item[0].title, 'autumn coats');

    const wrong = await advertiser.client.get('/api/advertiser/campaigns?sort=budget');
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json().errors[0].field, 'sort');
  });
});

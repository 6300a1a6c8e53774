import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fieldsOf } from '../../../helpers/advertiser.ts';
import type { TestClient } from '../../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

/** The publisher's "no campaign repeats on a page" option of a block. */
describe('publisher blocks: noCampaignRepeats', () => {
  let server: TestServer;
  let publisher: { id: number; client: TestClient };
  let other: { id: number; client: TestClient };
  let siteId: number;

  before(async () => {
    server = await startTestServer();
    publisher = await server.createAccount('publisher');
    other = await server.createAccount('publisher');
    const site = await publisher.client.post('/api/webmaster/sites', { url: 'https://options.example.test', category_id: 1 });
    assert.equal(site.status, 201, site.text);
    siteId = site.json<{ id: number }>().id;
  });
  after(() => server.close());

  it('is set on create, read back, changed, and absent when false', async () => {
    const created = await publisher.client.post(`/api/webmaster/sites/${siteId}/blocks`, {
      title: 'Top',
      noCampaignRepeats: true,
    });
    assert.equal(created.status, 201, created.text);
    const block = created.json<{ id: number; noCampaignRepeats?: boolean }>();
    assert.equal(block.noCampaignRepeats, true);
    assert.equal((await publisher.client.get(`/api/webmaster/blocks/${block.id}`)).json().noCampaignRepeats, true);
    const off = await publisher.client.put(`/api/webmaster/blocks/${block.id}`, { noCampaignRepeats: false });
    assert.equal(off.status, 200, off.text);
    assert.equal('noCampaignRepeats' in off.json(), false);
    const xml = await publisher.client.request('PUT', `/api/webmaster/blocks/${block.id}`, {
      raw: '<request><noCampaignRepeats>true</noCampaignRepeats></request>',
      contentType: 'application/xml',
      accept: 'application/xml',
    });
    assert.equal(xml.status, 200, xml.text);
    assert.equal(xml.xml().noCampaignRepeats, 'true');
  });

  it('refuses a bad value or an unknown field, and another publisher’s block', async () => {
    const block = (await publisher.client.post(`/api/webmaster/sites/${siteId}/blocks`, { title: 'Side' })).json<{
      id: number;
    }>();
    for (const [body, field] of [
      [{ noCampaignRepeats: 'sometimes' }, 'noCampaignRepeats'],
      [{ title: 'renamed' }, 'title'],
    ] as const) {
      const response = await publisher.client.put(`/api/webmaster/blocks/${block.id}`, body);
      assert.equal(response.status, 422, response.text);
      assert.ok(fieldsOf(response).includes(field), response.text);
    }
    const create = await publisher.client.post(`/api/webmaster/sites/${siteId}/blocks`, { title: 'x', noCampaignRepeats: 2 });
    assert.deepEqual(fieldsOf(create), ['noCampaignRepeats']);
    const foreign = await other.client.put(`/api/webmaster/blocks/${block.id}`, { noCampaignRepeats: true });
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal('noCampaignRepeats' in (await publisher.client.get(`/api/webmaster/blocks/${block.id}`)).json(), false);
  });
});

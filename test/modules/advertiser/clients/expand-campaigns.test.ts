import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer, recordTraffic } from '../../../helpers/fixtures.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../../helpers/server.ts';

const DAY_MS = 24 * 3600 * 1000;

describe('advertiser client with expand=campaigns', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("embeds the client's campaigns with their statistics for the period, in JSON and XML", async () => {
    const parent = await server.createAccount('advertiser');
    const registered = await parent.client.post('/api/advertiser/users', {
      user: `cl${process.pid}`,
      email: `cl${process.pid}@example.test`,
    });
    assert.equal(registered.status, 201, registered.text);
    const clientId = registered.json().id as number;
    const db = server.server.context.db;
    const shown = await insertCampaign(db, { advertiserId: clientId, title: 'Spring sale' });
    const archived = await insertCampaign(db, { advertiserId: clientId, title: 'Old' });
    await db.updateTable('campaigns').set({ archived: true }).where('id', '=', archived.id).execute();
    const offer = await insertOffer(db, { campaignId: shown.id });
    const base = { campaignId: shown.id, offerId: offer.id, siteId: 1, blockId: 1, device: 1 as const };
    await recordTraffic(db, [
      { ...base, at: TEST_EPOCH_MS, views: 200, clicks: 4, spendMicros: 2_000_000, conversions: { 1: 1 } },
      { ...base, at: TEST_EPOCH_MS - 3 * DAY_MS, views: 100, clicks: 1, spendMicros: 500_000 },
    ]);

    const plain = await parent.client.get(`/api/advertiser/users/${clientId}`);
    assert.equal(plain.json().campaigns, undefined);

    const expanded = await parent.client.get(
      `/api/advertiser/users/${clientId}?expand=campaigns&dateFrom=2026-03-10&dateTo=2026-03-10`,
    );
    assert.equal(expanded.status, 200, expanded.text);
    const campaigns = expanded.json().campaigns;
    assert.deepEqual(
      campaigns.map((campaign: { id: number }) => campaign.id),
      [shown.id],
    );
    assert.equal(campaigns[0].views, 200);
    assert.equal(campaigns[0].clicks, 4);
    assert.equal(campaigns[0].money, 2);
    assert.equal(campaigns[0].orders, 1);
    assert.equal(campaigns[0].cpc, 0.5);

    const withArchived = await parent.client.get(`/api/advertiser/users/${clientId}?expand=campaigns&archived=0`);
    assert.equal(withArchived.json().campaigns.length, 2);
    assert.equal(withArchived.json().campaigns[0].views, 300);

    const xml = await parent.client.get(`/api/advertiser/users/${clientId}?expand=campaigns`, { accept: 'application/xml' });
    assert.equal(xml.status, 200);
    const body = xml.xml();
    assert.equal(body.id, String(clientId));
    assert.equal(body.campaigns.item.length, 1);
    assert.equal(body.campaigns.item[0].title, 'Spring sale');
  });

  it('rejects a bad period (422) and hides other advertisers’ clients (404)', async () => {
    const parent = await server.createAccount('advertiser');
    const other = await server.createAccount('advertiser');
    const registered = await parent.client.post('/api/advertiser/users', {
      user: `cm${process.pid}`,
      email: `cm${process.pid}@example.test`,
    });
    const clientId = registered.json().id as number;
    const bad = await parent.client.get(`/api/advertiser/users/${clientId}?expand=campaigns&dateFrom=2026-02-30`);
    assert.equal(bad.status, 422);
    assert.equal(bad.json().errors[0].field, 'dateFrom');
    const foreign = await other.client.get(`/api/advertiser/users/${clientId}?expand=campaigns`);
    assert.equal(foreign.status, 404);
  });
});

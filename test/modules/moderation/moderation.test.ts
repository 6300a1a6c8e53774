import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer, insertSite } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('moderation of campaigns and ads', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const db = () => server.server.context.db;

  it('approves and rejects campaigns; the queue lists those waiting', async () => {
    const advertiser = await server.createAccount('advertiser', { name: 'Moderated Shop' });
    const waiting = await insertCampaign(db(), {
      advertiserId: advertiser.id,
      title: 'Waiting',
      geo: ['TH'],
      isRetarget: true,
      approved: false,
    });
    const other = await insertCampaign(db(), { advertiserId: advertiser.id, title: 'Also waiting', approved: false });
    await insertCampaign(db(), { advertiserId: advertiser.id, title: 'Approved already' });

    const queue = await server.operator.get('/api/admin/campaigns?status=0');
    assert.equal(queue.status, 200);
    assert.deepEqual(queue.json(), [
      {
        id: waiting.id,
        advertiserId: advertiser.id,
        advertiserName: 'Moderated Shop',
        title: 'Waiting',
        geo: ['TH'],
        isRetarget: true,
        status: 0,
        archived: false,
        date: waiting.created_at.toISOString(),
      },
      {
        id: other.id,
        advertiserId: advertiser.id,
        advertiserName: 'Moderated Shop',
        title: 'Also waiting',
        geo: [],
        isRetarget: false,
        status: 0,
        archived: false,
        date: other.created_at.toISOString(),
      },
    ]);
    assert.equal(queue.header('x-pagination-total-count'), '2');

    const approved = await server.operator.put(`/api/admin/campaigns/${waiting.id}`, { status: 1 });
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual(approved.json(), { id: waiting.id, status: 1 });
    const rejected = await server.operator.put(`/api/admin/campaigns/${other.id}`, undefined, {
      raw: 'status=2',
      contentType: 'application/x-www-form-urlencoded',
      accept: 'application/xml',
    });
    assert.equal(rejected.status, 200, rejected.text);
    assert.deepEqual(rejected.xml(), { id: String(other.id), status: '2' });
    const row = await db()
      .selectFrom('campaigns')
      .select('moderation_status')
      .where('id', '=', other.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.moderation_status, 2);

    assert.equal((await server.operator.get('/api/admin/campaigns?status=0')).json().length, 0);
    const xmlQueue = await server.operator.get('/api/admin/campaigns?status=2', { accept: 'application/xml' });
    assert.equal(xmlQueue.xml().item[0].id, String(other.id));
    assert.equal((await server.operator.get('/api/admin/campaigns')).json().length, 3);
  });

  it('approves and rejects ads; deleted ads are not moderated', async () => {
    const advertiser = await server.createAccount('advertiser', { name: 'Moderated Shop' });
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id });
    const offer = await insertOffer(db(), { campaignId: campaign.id, title: 'New phone', approved: false });
    const deleted = await insertOffer(db(), { campaignId: campaign.id, title: 'Gone', approved: false });
    await db().updateTable('offers').set({ deleted_at: new Date() }).where('id', '=', deleted.id).execute();

    // The queue shows the ad as blocks will: its pictures, headline, price, and where it leads.
    const wide = 'a'.repeat(64);
    await db()
      .updateTable('offers')
      .set({ image_wide: wide, price_text: '1990', bid_micros: 350_000 })
      .where('id', '=', offer.id)
      .execute();
    const queue = await server.operator.get('/api/admin/offers?status=0');
    assert.deepEqual(queue.json(), [
      {
        id: offer.id,
        campaignId: campaign.id,
        advertiserId: advertiser.id,
        advertiserName: 'Moderated Shop',
        campaignTitle: campaign.title,
        title: 'New phone',
        opis: 'New phone',
        cost: '1990',
        url: offer.url,
        stavka: 0.35,
        img: null,
        img_wide: {
          url: `${server.url}/api/img/${wide}/492x328.jpg`,
          allowedSizes: queue.json()[0].img_wide.allowedSizes,
          pattern: `${server.url}/api/img/${wide}/{width}x{height}.jpg`,
        },
        status: 0,
        date: offer.created_at.toISOString(),
      },
    ]);
    const approved = await server.operator.put(`/api/admin/offers/${offer.id}`, { status: 1 });
    assert.deepEqual(approved.json(), { id: offer.id, status: 1 });
    assert.equal((await server.operator.put(`/api/admin/offers/${deleted.id}`, { status: 1 })).status, 404);
    assert.equal((await server.operator.get('/api/admin/offers?status=0')).json().length, 0);
  });

  it('validates the decision (422 naming status) and answers 404 for unknown objects', async () => {
    const advertiser = await server.createAccount('advertiser');
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, approved: false });
    for (const status of [3, -1, 'approved', 1.5]) {
      const response = await server.operator.put(`/api/admin/campaigns/${campaign.id}`, { status });
      assert.equal(response.status, 422, `status ${status}`);
      assert.equal(response.json().errors[0].field, 'status');
    }
    assert.equal((await server.operator.put(`/api/admin/campaigns/${campaign.id}`, {})).status, 422);
    assert.equal((await server.operator.put('/api/admin/campaigns/999999', { status: 1 })).status, 404);
    assert.equal((await server.operator.put('/api/admin/offers/999999', { status: 1 })).status, 404);
    assert.equal((await server.operator.get('/api/admin/offers?status=7')).status, 422);
  });

  it('keeps moderation to operators', async () => {
    const advertiser = await server.createAccount('advertiser');
    const publisher = await server.createAccount('publisher');
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, approved: false });
    assert.equal((await advertiser.client.put(`/api/admin/campaigns/${campaign.id}`, { status: 1 })).status, 403);
    assert.equal((await publisher.client.get('/api/admin/offers?status=0')).status, 403);
    assert.equal((await server.anonymous.get('/api/admin/campaigns')).status, 401);
  });
  it('shows the earlier rejection (reason and when) of a campaign, an ad or a site sent back to moderation', async () => {
    const advertiser = await server.createAccount('advertiser');
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, title: 'Resubmitted', approved: false });
    const offer = await insertOffer(db(), { campaignId: campaign.id, title: 'Resubmitted ad', approved: false });
    const publisher = await server.createAccount('publisher');
    const site = await insertSite(db(), { publisherId: publisher.id, status: 0 });
    const rejectedAt = new Date(server.clock.now()).toISOString();
    const decide = async (path: string, body: Record<string, unknown>) => {
      const decided = await server.operator.put(path, body);
      assert.equal(decided.status, 200, decided.text);
    };
    await decide(`/api/admin/campaigns/${campaign.id}`, { status: 2, reason: 'Misleading title' });
    await decide(`/api/admin/offers/${offer.id}`, { status: 2, reason: 'Blurry picture' });
    await decide(`/api/admin/sites/${site.id}`, { status: 2, reason: 'Copied content' });
    server.clock.advance(60_000);
    for (const path of [`/api/advertiser/campaigns/resubmit/${campaign.id}`, `/api/advertiser/offers/resubmit/${offer.id}`]) {
      const resubmitted = await advertiser.client.post(path);
      assert.equal(resubmitted.status, 200, resubmitted.text);
    }
    const siteBack = await publisher.client.post(`/api/webmaster/sites/${site.id}/resubmit`);
    assert.equal(siteBack.status, 200, siteBack.text);

    const inQueue = async (path: string, id: number) => {
      const queue = await server.operator.get(path);
      assert.equal(queue.status, 200, queue.text);
      return queue
        .json<{ id: number; lastRejection?: { reason: string | null; date: string } }[]>()
        .find((item) => item.id === id);
    };
    assert.deepEqual((await inQueue('/api/admin/campaigns?status=0', campaign.id))?.lastRejection, {
      reason: 'Misleading title',
      date: rejectedAt,
    });
    assert.deepEqual((await inQueue('/api/admin/offers?status=0', offer.id))?.lastRejection, {
      reason: 'Blurry picture',
      date: rejectedAt,
    });
    assert.deepEqual((await inQueue('/api/admin/sites?status=0&limit=100', site.id))?.lastRejection, {
      reason: 'Copied content',
      date: rejectedAt,
    });
  });
});

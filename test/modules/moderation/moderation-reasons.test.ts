import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer, insertSite } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('moderation with reasons', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const db = () => server.server.context.db;
  const outboxOf = (accountId: number) =>
    db()
      .selectFrom('mail_outbox')
      .select(['kind', 'subject', 'body_text'])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'moderation')
      .orderBy('id')
      .execute();
  const auditOf = async (action: string, objectId: number) =>
    (await server.operator.get(`/api/admin/audit?action=${action}&objectId=${objectId}`)).json();

  it('keeps an editable list of reasons, every change audited; operators only', async () => {
    const added = await server.operator.post('/api/admin/moderation-reasons', { text: '  Misleading price  ' });
    assert.equal(added.status, 201, added.text);
    const reason = added.json();
    assert.equal(reason.text, 'Misleading price');
    const second = (await server.operator.post('/api/admin/moderation-reasons', { text: 'Adult content' })).json();
    const list = await server.operator.get('/api/admin/moderation-reasons');
    assert.deepEqual(
      list.json().map((row: { text: string }) => row.text),
      ['Adult content', 'Misleading price'],
    );
    const xml = await server.operator.get('/api/admin/moderation-reasons', { accept: 'application/xml' });
    assert.equal(xml.xml().item[0].text, 'Adult content');

    const reworded = await server.operator.put(`/api/admin/moderation-reasons/${reason.id}`, {
      text: 'Price differs from the shop',
    });
    assert.equal(reworded.status, 200, reworded.text);
    assert.equal(reworded.json().text, 'Price differs from the shop');
    const [change] = await auditOf('moderation_reason.update', reason.id);
    assert.deepEqual([change.before, change.after], [{ text: 'Misleading price' }, { text: 'Price differs from the shop' }]);

    const blank = await server.operator.post('/api/admin/moderation-reasons', { text: '   ' });
    assert.equal(blank.status, 422);
    assert.equal(blank.json().errors[0].field, 'text');
    assert.equal((await server.operator.post('/api/admin/moderation-reasons', { text: 'x'.repeat(501) })).status, 422);
    assert.equal((await server.operator.put('/api/admin/moderation-reasons/999999', { text: 'Nothing' })).status, 404);

    assert.equal((await server.operator.delete(`/api/admin/moderation-reasons/${second.id}`)).status, 204);
    assert.equal((await server.operator.delete(`/api/admin/moderation-reasons/${second.id}`)).status, 404);
    assert.equal((await auditOf('moderation_reason.delete', second.id)).length, 1);
    assert.equal((await server.operator.get('/api/admin/moderation-reasons')).json().length, 1);

    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.get('/api/admin/moderation-reasons')).status, 403);
    assert.equal((await server.anonymous.get('/api/admin/moderation-reasons')).status, 401);
  });

  it('rejects an ad with a reason the owner reads, by notification and e-mail; resubmits; approval clears it', async () => {
    const advertiser = await server.createAccount('advertiser', { name: 'Phone Shop Ltd' });
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, title: 'Phones' });
    const offer = await insertOffer(db(), { campaignId: campaign.id, title: 'New phone', approved: false });

    const queue = (await server.operator.get('/api/admin/offers?status=0')).json();
    assert.equal(queue.find((row: { id: number }) => row.id === offer.id).advertiserName, 'Phone Shop Ltd');

    const reason = 'The price on the landing page is 1990, not 990.';
    const rejected = await server.operator.put(`/api/admin/offers/${offer.id}`, { status: 2, reason: `  ${reason} ` });
    assert.equal(rejected.status, 200, rejected.text);
    assert.deepEqual(rejected.json(), { id: offer.id, status: 2, reason });

    const own = (await advertiser.client.get(`/api/advertiser/offers/${offer.id}`)).json();
    assert.equal(own.status, 2);
    assert.equal(own.moderationReason, reason);
    const ownXml = await advertiser.client.get(`/api/advertiser/offers/${offer.id}`, { accept: 'application/xml' });
    assert.equal(ownXml.xml().moderationReason, reason);

    const [notice] = (await advertiser.client.get('/api/notifications')).json();
    assert.equal(notice.kind, 'moderation.decided');
    assert.equal(notice.read, false);
    assert.match(notice.text, /ad “New phone” was rejected: The price on the landing page is 1990, not 990\./);
    assert.deepEqual(notice.data, { object: 'ad', id: offer.id, outcome: 'rejected', reason });

    const mails = await outboxOf(advertiser.id);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]?.kind, 'moderation');
    assert.match(mails[0]?.body_text ?? '', /1990, not 990/);

    const [audited] = await auditOf('offer.moderate', offer.id);
    assert.deepEqual(audited.after, { status: 2, reason });

    // Someone else's ad, and an ad that is not rejected, cannot be resubmitted.
    const stranger = await server.createAccount('advertiser');
    assert.equal((await stranger.client.post(`/api/advertiser/offers/resubmit/${offer.id}`)).status, 404);
    const resubmitted = await advertiser.client.post(`/api/advertiser/offers/resubmit/${offer.id}`);
    assert.equal(resubmitted.status, 200, resubmitted.text);
    assert.deepEqual(resubmitted.json(), { id: offer.id, status: 0, reason });
    const again = await advertiser.client.post(`/api/advertiser/offers/resubmit/${offer.id}`);
    assert.equal(again.status, 409);
    assert.equal(again.json().code, 4030);
    assert.equal((await auditOf('offer.resubmit', offer.id)).length, 1);
    const waiting = (await server.operator.get('/api/admin/offers?status=0')).json();
    assert.equal(waiting.find((row: { id: number }) => row.id === offer.id).reason, reason, 'the operator sees the last reason');

    const approved = await server.operator.put(`/api/admin/offers/${offer.id}`, { status: 1 });
    assert.deepEqual(approved.json(), { id: offer.id, status: 1 });
    assert.equal((await advertiser.client.get(`/api/advertiser/offers/${offer.id}`)).json().moderationReason, undefined);
    const notices = (await advertiser.client.get('/api/notifications')).json();
    assert.equal(notices.length, 2);
    assert.match(notices[0].text, /ad “New phone” was approved\./);
    assert.equal((await outboxOf(advertiser.id)).length, 2);
  });

  it('rejects a campaign with a reason; a decision that fails changes nothing', async () => {
    const advertiser = await server.createAccount('advertiser');
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, title: 'Summer sale', approved: false });
    const tooLong = await server.operator.put(`/api/admin/campaigns/${campaign.id}`, { status: 2, reason: 'x'.repeat(1001) });
    assert.equal(tooLong.status, 422);
    assert.equal((await advertiser.client.get('/api/notifications')).json().length, 0);
    assert.equal((await outboxOf(advertiser.id)).length, 0);

    const rejected = await server.operator.put(`/api/admin/campaigns/${campaign.id}`, { status: 2, reason: 'Countries missing' });
    assert.equal(rejected.status, 200, rejected.text);
    const own = (await advertiser.client.get(`/api/advertiser/campaigns/${campaign.id}`)).json();
    assert.equal(own.moderationReason, 'Countries missing');
    assert.equal((await advertiser.client.post(`/api/advertiser/campaigns/resubmit/${campaign.id}`)).status, 200);
    assert.equal((await advertiser.client.get(`/api/advertiser/campaigns/${campaign.id}`)).json().status, 0);
  });

  it('bans a site with a reason; the publisher reads it and resubmits; sites name their owner', async () => {
    const publisher = await server.createAccount('publisher', { name: 'Daily News Media' });
    const site = await insertSite(db(), { publisherId: publisher.id, url: 'https://news.example.test', status: 0 });
    const listed = (await server.operator.get(`/api/admin/sites?userId=${publisher.id}`)).json();
    assert.equal(listed[0].userName, 'Daily News Media');

    const banned = await server.operator.put(`/api/admin/sites/${site.id}`, { status: 2, reason: 'Copied content' });
    assert.equal(banned.status, 200, banned.text);
    assert.equal(banned.json().moderationReason, 'Copied content');
    const own = (await publisher.client.get(`/api/webmaster/sites/${site.id}`)).json();
    assert.equal(own.status, 'banned');
    assert.equal(own.moderationReason, 'Copied content');
    const [notice] = (await publisher.client.get('/api/notifications')).json();
    assert.match(notice.text, /site “https:\/\/news\.example\.test” was rejected: Copied content/);
    assert.equal((await outboxOf(publisher.id)).length, 1);

    const resubmitted = await publisher.client.post(`/api/webmaster/sites/${site.id}/resubmit`);
    assert.equal(resubmitted.status, 200, resubmitted.text);
    assert.equal(resubmitted.json().status, 'moderation');
    assert.equal((await publisher.client.post(`/api/webmaster/sites/${site.id}/resubmit`)).status, 409);
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.post(`/api/webmaster/sites/${site.id}/resubmit`)).status, 403);
  });
});

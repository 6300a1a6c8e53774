import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCampaign, fieldsOf } from '../../../helpers/advertiser.ts';
import type { TestClient } from '../../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A campaign's frequency cap, schedule and time zone through the campaign API, JSON and XML. */
describe('advertiser campaigns: frequency cap, schedule, time zone', () => {
  let server: TestServer;
  let advertiser: { id: number; client: TestClient };
  let other: { id: number; client: TestClient };

  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
    other = await server.createAccount('advertiser');
  });
  after(() => server.close());

  it('creates, reads and changes them; a campaign without them reads as before', async () => {
    const created = await advertiser.client.post('/api/advertiser/campaigns', {
      title: 'Office hours',
      category_id: 2,
      frequencyCap: 3,
      schedule: '8-17, 32-41',
      timeZone: 'Europe/Berlin',
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json<{ id: number }>().id;
    const officeHours = [...Array.from({ length: 10 }, (_, h) => 8 + h), ...Array.from({ length: 10 }, (_, h) => 32 + h)];
    const read = (await advertiser.client.get(`/api/advertiser/campaigns/${id}`)).json();
    assert.equal(read.frequencyCap, 3);
    assert.deepEqual(read.schedule, officeHours);
    assert.equal(read.timeZone, 'Europe/Berlin');

    const changed = await advertiser.client.put(`/api/advertiser/campaigns/${id}`, { frequencyCap: 0, schedule: [167, 0] });
    assert.equal(changed.status, 200, changed.text);
    const after = changed.json();
    assert.equal('frequencyCap' in after, false, '0 means no cap, and reads as absent');
    assert.deepEqual(after.schedule, [0, 167]);
    assert.equal(after.timeZone, 'Europe/Berlin', 'a field not sent is left as it was');
    assert.equal(after.active, true);

    const plain = await createCampaign(advertiser.client);
    const body = (await advertiser.client.get(`/api/advertiser/campaigns/${plain}`)).json();
    for (const field of ['frequencyCap', 'schedule', 'timeZone']) assert.equal(field in body, false, field);
  });

  it('takes them in XML and answers them in XML', async () => {
    const response = await advertiser.client.request('POST', '/api/advertiser/campaigns', {
      raw: '<request><title>XML</title><category_id>2</category_id><frequencyCap>5</frequencyCap><schedule>9-10</schedule><timeZone>Asia/Tokyo</timeZone></request>',
      contentType: 'application/xml',
      accept: 'application/xml',
    });
    assert.equal(response.status, 201, response.text);
    const campaign = response.xml();
    assert.equal(campaign.frequencyCap, '5');
    assert.deepEqual(campaign.schedule.item, ['9', '10']);
    assert.equal(campaign.timeZone, 'Asia/Tokyo');
  });

  it('refuses invalid values naming the field, and changes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ frequencyCap: -1 }, 'frequencyCap'],
      [{ frequencyCap: 1.5 }, 'frequencyCap'],
      [{ frequencyCap: 1_000_001 }, 'frequencyCap'],
      [{ schedule: [168] }, 'schedule'],
      [{ schedule: '9-170' }, 'schedule'],
      [{ schedule: '17-9' }, 'schedule'],
      [{ schedule: [] }, 'schedule'],
      [{ schedule: 'weekdays' }, 'schedule'],
      [{ timeZone: 'Mars/Olympus' }, 'timeZone'],
      [{ timeZone: 7 }, 'timeZone'],
    ];
    const id = await createCampaign(advertiser.client, { frequencyCap: 4 });
    for (const [fields, field] of cases) {
      const create = await advertiser.client.post('/api/advertiser/campaigns', { title: 'x', category_id: 2, ...fields });
      assert.equal(create.status, 422, `${JSON.stringify(fields)}: ${create.text}`);
      assert.deepEqual(fieldsOf(create), [field], JSON.stringify(fields));
      const change = await advertiser.client.put(`/api/advertiser/campaigns/${id}`, { active: false, ...fields });
      assert.equal(change.status, 422, `${JSON.stringify(fields)}: ${change.text}`);
      assert.deepEqual(fieldsOf(change), [field], JSON.stringify(fields));
    }
    const unchanged = (await advertiser.client.get(`/api/advertiser/campaigns/${id}`)).json();
    assert.equal(unchanged.frequencyCap, 4);
    assert.equal(unchanged.active, true);
  });

  it('changes the daily limits after creation, without sending the campaign back to moderation', async () => {
    const id = await createCampaign(advertiser.client, { maxmoney: 50, maxclicks: 100 });
    const db = server.server.context.db;
    await db.updateTable('campaigns').set({ moderation_status: 1 }).where('id', '=', id).execute();
    const changed = await advertiser.client.put(`/api/advertiser/campaigns/${id}`, { maxmoney: '12.5', maxclicks: 0 });
    assert.equal(changed.status, 200, changed.text);
    const campaign = changed.json<{ maxmoney: number; maxclicks: number; status: number }>();
    assert.equal(campaign.maxmoney, 12.5);
    assert.equal(campaign.maxclicks, 0, '0: no click limit any more');
    const row = await db
      .selectFrom('campaigns')
      .select(['daily_budget_micros', 'moderation_status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.daily_budget_micros), 12_500_000);
    assert.equal(row.moderation_status, 1, 'limits are not content: still approved');
    // A bad limit is a 422 naming it, and changes nothing.
    const refused = await advertiser.client.put(`/api/advertiser/campaigns/${id}`, { maxmoney: -1, maxclicks: 5 });
    assert.equal(refused.status, 422, refused.text);
    assert.ok(fieldsOf(refused).includes('maxmoney'), refused.text);
    const unchanged = (await advertiser.client.get(`/api/advertiser/campaigns/${id}`)).json<{ maxclicks: number }>();
    assert.equal(unchanged.maxclicks, 0);
  });

  it("another advertiser's campaign is not found", async () => {
    const id = await createCampaign(advertiser.client);
    const response = await other.client.put(`/api/advertiser/campaigns/${id}`, { frequencyCap: 1 });
    assert.equal(response.status, 404, response.text);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { emitBudgetExhausted } from '../../../src/modules/webhooks/emit.ts';
import { insertCampaign } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('in-app notifications', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const db = () => server.server.context.db;
  const move = (accountId: number, amount: string) =>
    server.operator.post(`/api/admin/users/${accountId}/balance`, { amount, comment: 'test' });

  it('tells an advertiser once when its balance falls below its line; the line is its own to set', async () => {
    const advertiser = await server.createAccount('advertiser');
    const summary = (await advertiser.client.get('/api/notifications/summary')).json();
    assert.deepEqual(summary, { unread: 0, lowBalance: 10 });

    assert.equal((await move(advertiser.id, '12')).status, 200);
    assert.equal((await move(advertiser.id, '-2')).status, 200);
    assert.equal((await advertiser.client.get('/api/notifications')).json().length, 0, '10.00 is not below 10.00');
    await move(advertiser.id, '-0.5');
    await move(advertiser.id, '-1');
    const notices = (await advertiser.client.get('/api/notifications')).json();
    assert.equal(notices.length, 1, 'a balance that stays low is told once');
    assert.equal(notices[0].kind, 'balance.low');
    assert.deepEqual(notices[0].data, { balance: 9.5, threshold: 10 });
    assert.match(notices[0].text, /Your balance is 9\.50, below 10\.00/);

    const set = await advertiser.client.put('/api/notifications/settings', { lowBalance: '50' });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.json(), { unread: 1, lowBalance: 50 });
    const [audited] = (await advertiser.client.get('/api/me/audit?action=notifications.settings')).json();
    assert.deepEqual([audited.before, audited.after], [{ lowBalance: 10 }, { lowBalance: 50 }]);
    assert.equal((await advertiser.client.put('/api/notifications/settings', { lowBalance: '-1' })).status, 422);
    assert.equal((await advertiser.client.put('/api/notifications/settings', { lowBalance: '1,000' })).status, 422);
    await move(advertiser.id, '60');
    await move(advertiser.id, '-30');
    const after = (await advertiser.client.get('/api/notifications')).json();
    assert.equal(after.length, 2);
    assert.deepEqual(after[0].data, { balance: 38.5, threshold: 50 });

    // Publishers' balances fall by payouts: no "low balance" for them.
    const publisher = await server.createAccount('publisher');
    await move(publisher.id, '20');
    await move(publisher.id, '-15');
    assert.equal((await publisher.client.get('/api/notifications')).json().length, 0);
  });

  it('tells an advertiser once per campaign and day that its budget stopped a campaign, by title', async () => {
    const advertiser = await server.createAccount('advertiser');
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, title: 'Winter boots' });
    const at = new Date(server.clock.now());
    const refusal = { advertiserId: advertiser.id, campaignId: campaign.id, title: campaign.title, at };
    await db()
      .transaction()
      .execute((trx) => emitBudgetExhausted(trx, [refusal, refusal], 'UTC'));
    await db()
      .transaction()
      .execute((trx) => emitBudgetExhausted(trx, [{ ...refusal, at: new Date(at.getTime() + 60_000) }], 'UTC'));
    const notices = (await advertiser.client.get('/api/notifications')).json();
    assert.equal(notices.length, 1);
    assert.equal(notices[0].kind, 'campaign.budget_exhausted');
    assert.match(notices[0].text, /“Winter boots” reached its daily limit on 2026-03-10/);
    assert.deepEqual(notices[0].data, { campaignId: campaign.id, day: '2026-03-10' });
    await db()
      .transaction()
      .execute((trx) => emitBudgetExhausted(trx, [{ ...refusal, at: new Date(at.getTime() + 86_400_000) }], 'UTC'));
    assert.equal((await advertiser.client.get('/api/notifications')).json().length, 2, 'the next day is told again');
  });

  it('writes each notification in its account’s language', async () => {
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.put('/api/me/language', { language: 'ru' })).status, 204);
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, title: 'Зимние сапоги' });
    await move(advertiser.id, '12');
    await move(advertiser.id, '-3');
    const at = new Date(server.clock.now());
    await db()
      .transaction()
      .execute((trx) =>
        emitBudgetExhausted(trx, [{ advertiserId: advertiser.id, campaignId: campaign.id, title: campaign.title, at }], 'UTC'),
      );
    const texts = (await advertiser.client.get('/api/notifications')).json().map((notice: { text: string }) => notice.text);
    assert.deepEqual(texts.sort(), [
      'Ваш баланс — 9.00, это ниже 10.00: пополните его, чтобы кампании продолжали работать.',
      'Кампания «Зимние сапоги» достигла дневного лимита 2026-03-10 и остановлена до завтра.',
    ]);
  });

  it('lists, filters, counts and marks read; only the account’s own', async () => {
    const advertiser = await server.createAccount('advertiser');
    await move(advertiser.id, '11');
    await move(advertiser.id, '-2');
    await move(advertiser.id, '20');
    await move(advertiser.id, '-25');
    const all = (await advertiser.client.get('/api/notifications')).json();
    assert.equal(all.length, 2);
    assert.ok(all[0].id > all[1].id, 'newest first');
    assert.equal((await advertiser.client.get('/api/notifications/summary')).json().unread, 2);

    const stranger = await server.createAccount('publisher');
    assert.equal((await stranger.client.post(`/api/notifications/${all[0].id}/read`)).status, 404);
    assert.equal((await advertiser.client.post(`/api/notifications/${all[0].id}/read`)).status, 204);
    const unread = await advertiser.client.get('/api/notifications?unread=1');
    assert.deepEqual(
      unread.json().map((row: { id: number }) => row.id),
      [all[1].id],
    );
    assert.equal(unread.header('x-pagination-total-count'), '1');
    const xml = await advertiser.client.get('/api/notifications', { accept: 'application/xml' });
    assert.equal(xml.xml().item[0].read, 'true');
    assert.equal((await advertiser.client.post('/api/notifications/read')).status, 204);
    assert.equal((await advertiser.client.get('/api/notifications/summary')).json().unread, 0);
    assert.equal((await server.anonymous.get('/api/notifications')).status, 401);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

describe('payout details, the minimum payout and what will be paid', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { MIN_PAYOUT: '25' } });
  });
  after(() => server.close());
  const credit = (accountId: number, amount: string) =>
    server.operator.post(`/api/admin/users/${accountId}/balance`, { amount, comment: 'earned' });

  it('pays nothing below the minimum or without details; the whole balance once both are there', async () => {
    const publisher = await server.createAccount('publisher');
    await credit(publisher.id, '20');
    const summary = async () => (await publisher.client.get('/api/webmaster/payout-summary')).json();
    assert.deepEqual(await summary(), { balance: 20, minimum: 25, payable: 0, pending: 0, details: null });

    const details = { method: 'bank_transfer', holder: 'Daily News Media Ltd', account: 'IBAN DE89 3704 0044 0532 0130 00' };
    const saved = await publisher.client.put('/api/webmaster/payout-details', details);
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.json().details.account, details.account);
    assert.equal(saved.json().payable, 0, 'below the minimum');
    await credit(publisher.id, '5.5');
    assert.equal((await summary()).payable, 25.5);

    const recorded = await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: '10', wallet: 'bank' });
    assert.equal(recorded.status, 201, recorded.text);
    const after = await summary();
    assert.deepEqual([after.balance, after.pending, after.payable], [15.5, 10, 0]);

    const owed = (await server.operator.get('/api/admin/publishers/balances')).json();
    assert.deepEqual(owed.find((row: { userId: number }) => row.userId === publisher.id).payTo, {
      method: 'bank_transfer',
      holder: details.holder,
      account: details.account,
    });
  });

  it('audits every change of the details and refuses what is not a method or is blank', async () => {
    const publisher = await server.createAccount('publisher');
    const first = { method: 'paypal', holder: 'Ann', account: 'ann@example.test' };
    await publisher.client.put('/api/webmaster/payout-details', first);
    await publisher.client.put('/api/webmaster/payout-details', { ...first, method: 'wise' });
    const audit = (await publisher.client.get('/api/me/audit?action=payout_details.update')).json();
    assert.equal(audit.length, 2);
    assert.equal(audit[1].before, null);
    assert.equal(audit[0].before.method, 'paypal');
    assert.equal(audit[0].after.method, 'wise');

    const unknown = await publisher.client.put('/api/webmaster/payout-details', { ...first, method: 'cheque' });
    assert.equal(unknown.status, 422);
    const blank = await publisher.client.put('/api/webmaster/payout-details', { ...first, holder: '  ' });
    assert.equal(blank.status, 422);
    assert.equal(blank.json().errors[0].field, 'holder');
    const xml = await publisher.client.get('/api/webmaster/payout-summary', { accept: 'application/xml' });
    assert.equal(xml.xml().details.method, 'wise');

    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.put('/api/webmaster/payout-details', first)).status, 403);
    assert.equal((await server.anonymous.get('/api/webmaster/payout-summary')).status, 401);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('an account’s own balance moves (billing page)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('lists every move with the balance after it, by period, and as a CSV statement', async () => {
    const advertiser = await server.createAccount('advertiser');
    const move = (amount: string, comment: string) =>
      server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount, comment });
    await move('100', 'bank transfer, invoice 17');
    await move('-30.25', 'refund "as agreed"');
    await move('5', 'bonus');

    const list = await advertiser.client.get('/api/me/ledger');
    assert.equal(list.status, 200, list.text);
    const entries = list.json();
    assert.deepEqual(
      entries.map((entry: { amount: number; balance: number }) => [entry.amount, entry.balance]),
      [
        [5, 74.75],
        [-30.25, 69.75],
        [100, 100],
      ],
    );
    assert.equal(list.header('x-pagination-total-count'), '3');

    // The moves carry the database's time: a period that ends before them holds none.
    const first = new Date(entries[2].date);
    const before = await advertiser.client.get(`/api/me/ledger?to=${encodeURIComponent(first.toISOString())}`);
    assert.equal(before.json().length, 0);
    const since = await advertiser.client.get(`/api/me/ledger?from=${encodeURIComponent(first.toISOString())}`);
    assert.equal(since.json().length, 3);
    assert.equal((await advertiser.client.get('/api/me/ledger?from=yesterday')).status, 422);

    const csv = await advertiser.client.get('/api/me/ledger/export?format=csv');
    assert.equal(csv.status, 200);
    assert.match(csv.header('content-type') ?? '', /text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    assert.equal(lines[0], 'date,kind,amount,balance,reference,comment');
    assert.equal(lines.length, 4);
    assert.match(lines[1] ?? '', /,deposit,100,100,,"bank transfer, invoice 17"$/);
    assert.match(lines[2] ?? '', /,-30.25,69.75,,"refund ""as agreed"""$/);

    const other = await server.createAccount('advertiser');
    assert.equal((await other.client.get('/api/me/ledger')).json().length, 0, 'only one’s own moves');
    assert.equal((await server.anonymous.get('/api/me/ledger')).status, 401);
  });
});

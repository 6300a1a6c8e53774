import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertSite } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('sorting and searching the site and payout lists on the server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("sorts a publisher's sites by address or creation, searches addresses in any case, for the publisher and the operator", async () => {
    const publisher = await server.createAccount('publisher');
    const db = server.server.context.db;
    for (const url of [
      'https://Zebra.example.test',
      'https://apple.example.test',
      'https://100%-news.example.test',
      'https://Mango.example.test',
    ]) {
      await insertSite(db, { publisherId: publisher.id, url });
    }
    await insertSite(db, { publisherId: (await server.createAccount('publisher')).id, url: 'https://apple.other.test' });
    const urls = async (query: string) =>
      (await publisher.client.get(`/api/webmaster/sites?${query}`)).json<{ url: string }[]>().map((row) => row.url);

    assert.deepEqual(await urls('sort=url'), [
      'https://100%-news.example.test',
      'https://apple.example.test',
      'https://Mango.example.test',
      'https://Zebra.example.test',
    ]);
    assert.deepEqual(await urls('sort=-url'), [
      'https://Zebra.example.test',
      'https://Mango.example.test',
      'https://apple.example.test',
      'https://100%-news.example.test',
    ]);
    assert.deepEqual(await urls('sort=-created'), [
      'https://Mango.example.test',
      'https://100%-news.example.test',
      'https://apple.example.test',
      'https://Zebra.example.test',
    ]);
    assert.deepEqual(await urls('q=APPLE'), ['https://apple.example.test'], "another publisher's site is not found");
    assert.deepEqual(await urls(`q=${encodeURIComponent('100%')}`), ['https://100%-news.example.test'], '% is taken literally');
    assert.deepEqual(await urls('q=_'), []);

    const paged = await publisher.client.get('/api/webmaster/sites?q=example&sort=-url&per-page=1&page=2');
    assert.deepEqual(
      paged.json().map((row: { url: string }) => row.url),
      ['https://Mango.example.test'],
    );
    assert.equal(paged.header('x-pagination-total-count'), '4');

    const operatorUrls = async (query: string) =>
      (await server.operator.get(`/api/admin/sites?${query}`)).json<{ url: string }[]>().map((row) => row.url);
    assert.deepEqual(await operatorUrls('q=apple&sort=-url'), ['https://apple.other.test', 'https://apple.example.test']);
    assert.deepEqual(await operatorUrls(`q=apple&sort=url&userId=${publisher.id}`), ['https://apple.example.test']);

    const wrong = await publisher.client.get('/api/webmaster/sites?sort=status');
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json().errors[0].field, 'sort');
    assert.equal((await server.operator.get('/api/admin/sites?sort=-blocks')).status, 422);
  });

  it('sorts payouts by amount or date, newest first by default, and searches their destinations, for the publisher and the operator', async () => {
    const publisher = await server.createAccount('publisher');
    const credited = await server.operator.post(`/api/admin/users/${publisher.id}/balance`, {
      amount: '100',
      comment: 'revenue share',
    });
    assert.equal(credited.status, 200, credited.text);
    const payouts = [
      { amount: '5', wallet: 'PayPal:first@example.test' },
      { amount: '20.5', wallet: 'iban:DE00 1234' },
      { amount: '1.25', wallet: 'paypal:third_one@example.test' },
    ];
    const ids: number[] = [];
    for (const payout of payouts) {
      const response = await server.operator.post('/api/admin/payouts', { userId: publisher.id, ...payout });
      assert.equal(response.status, 201, response.text);
      ids.push(response.json().id);
    }
    const [first, second, third] = ids;
    const listed = async (query: string) =>
      (await publisher.client.get(`/api/webmaster/payment?${query}`))
        .json<{ id: number; amount: number }[]>()
        .map((row) => row.id);

    assert.deepEqual(await listed(''), [third, second, first], 'newest first without sort');
    assert.deepEqual(await listed('sort=id'), [first, second, third]);
    assert.deepEqual(await listed('sort=-amount'), [second, first, third]);
    assert.deepEqual(await listed('sort=amount'), [third, first, second]);
    assert.deepEqual(await listed('sort=created'), [first, second, third], 'same moment: by id');
    assert.deepEqual(await listed('q=PAYPAL&sort=amount'), [third, first]);
    assert.deepEqual(await listed('q=third_'), [third], '_ is taken literally');
    assert.deepEqual(await listed('q=first_'), []);

    const paged = await publisher.client.get('/api/webmaster/payment?q=paypal&sort=-amount&per-page=1&page=2');
    assert.deepEqual(
      paged.json().map((row: { id: number }) => row.id),
      [third],
    );
    assert.equal(paged.header('x-pagination-total-count'), '2');

    const operatorListed = async (query: string) =>
      (await server.operator.get(`/api/admin/payouts?userId=${publisher.id}&${query}`))
        .json<{ id: number }[]>()
        .map((row) => row.id);
    assert.deepEqual(await operatorListed('sort=-amount'), [second, first, third]);
    assert.deepEqual(await operatorListed('q=iban'), [second]);

    const wrong = await publisher.client.get('/api/webmaster/payment?sort=wallet');
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json().errors[0].field, 'sort');
    assert.equal((await server.operator.get('/api/admin/payouts?sort=status')).status, 422);
  });
});

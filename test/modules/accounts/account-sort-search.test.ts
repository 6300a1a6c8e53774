import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('sorting and searching account lists on the server (the operator’s accounts, an advertiser’s clients)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('searches login, name and e-mail in any case and sorts by name or balance', async () => {
    const tag = `s${process.pid}`;
    const make = async (username: string, name: string, balance: string) => {
      const account = await server.createAccount('publisher', { username: `${tag}_${username}`, name });
      if (balance !== '0')
        await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: balance, comment: 'x' });
      return account;
    };
    await make('zeta', 'Alpha Media', '5');
    await make('alpha', 'zulu news', '50');
    await make('mid', 'Mike Press', '0');
    const list = async (query: string) =>
      (await server.operator.get(`/api/admin/users?type=publisher&q=${tag}&${query}`))
        .json<{ name: string }[]>()
        .map((row) => row.name);

    assert.deepEqual(await list('sort=name'), ['Alpha Media', 'Mike Press', 'zulu news']);
    assert.deepEqual(await list('sort=-balance'), ['zulu news', 'Alpha Media', 'Mike Press']);
    assert.deepEqual(await list('sort=username'), ['zulu news', 'Mike Press', 'Alpha Media']);
    const byName = await server.operator.get(`/api/admin/users?q=${encodeURIComponent('MIKE press')}`);
    assert.deepEqual(
      byName.json().map((row: { name: string }) => row.name),
      ['Mike Press'],
    );
    assert.equal((await server.operator.get('/api/admin/users?sort=password')).status, 422);

    const advertiser = await server.createAccount('advertiser');
    for (const [username, name] of [
      ['c1', 'Shoe Shop'],
      ['c2', 'Hat Shop'],
      ['c3', 'Bakery'],
    ]) {
      const made = await advertiser.client.post('/api/advertiser/users', {
        user: `${tag}_${username}`,
        email: `${tag}_${username}@example.test`,
        name,
      });
      assert.equal(made.status, 201, made.text);
    }
    const clients = await advertiser.client.get('/api/advertiser/users?q=shop&sort=-name');
    assert.equal(clients.status, 200, clients.text);
    assert.deepEqual(
      clients.json().map((row: { name: string }) => row.name),
      ['Shoe Shop', 'Hat Shop'],
    );
  });
});

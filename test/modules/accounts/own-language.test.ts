import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('an account’s language', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('is English until the account chooses Russian, and the choice is its own', async () => {
    const publisher = await server.createAccount('publisher');
    const other = await server.createAccount('publisher');
    assert.equal((await publisher.client.get('/api/me')).json().language, 'en');

    const chosen = await publisher.client.put('/api/me/language', { language: 'ru' });
    assert.equal(chosen.status, 204, chosen.text);
    assert.equal((await publisher.client.get('/api/me')).json().language, 'ru');
    assert.equal((await other.client.get('/api/me')).json().language, 'en');

    const xml = await publisher.client.get('/api/me', { headers: { accept: 'application/xml' } });
    assert.match(xml.text, /<language>ru<\/language>/);
  });

  it('refuses a language the app does not speak, and changes nothing', async () => {
    const advertiser = await server.createAccount('advertiser');
    for (const body of [{ language: 'de' }, { language: '' }, {}]) {
      const refused = await advertiser.client.put('/api/me/language', body);
      assert.equal(refused.status, 422, refused.text);
    }
    assert.equal((await advertiser.client.get('/api/me')).json().language, 'en');
    assert.equal((await server.anonymous.put('/api/me/language', { language: 'ru' })).status, 401);
  });
});

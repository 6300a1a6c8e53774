import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('server start', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers /api/me for the bootstrap operator over TLS', async () => {
    const response = await server.operator.get('/api/me');
    assert.equal(response.status, 200);
    assert.equal(response.json().type, 'operator');
  });

  it('creates accounts whose tokens work', async () => {
    const advertiser = await server.createAccount('advertiser');
    const me = await advertiser.client.get('/api/me');
    assert.equal(me.status, 200);
    assert.equal(me.json().id, advertiser.id);
    assert.equal(me.json().type, 'advertiser');
  });
});

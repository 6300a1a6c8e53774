import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Each route negotiates among the types it produces, besides JSON and XML (src/http/negotiation.ts). */
describe('a route accepts the media types it serves', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('serves metrics to Prometheus’ own Accept, versioned text/plain included', async () => {
    const accept = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const response = await server.operator.get('/api/metrics', { accept });
    assert.equal(response.status, 200, response.text);
    assert.match(response.header('content-type') ?? '', /^text\/plain/);
    assert.equal((await server.operator.get('/api/metrics', { accept: 'text/plain' })).status, 200);
  });

  it('serves the CSV export to Accept: text/csv, the loader to application/javascript, a pixel to image/*', async () => {
    const advertiser = await server.createAccount('advertiser');
    const csv = await advertiser.client.get('/api/advertiser/clicks/export?format=csv', { accept: 'text/csv' });
    assert.equal(csv.status, 200, csv.text);
    assert.match(csv.header('content-type') ?? '', /^text\/csv/);
    const loader = await server.anonymous.get('/api/serve/loader.js', { accept: 'application/javascript' });
    assert.equal(loader.status, 200);
    const pixel = await server.anonymous.get(`/api/serve/audience.gif?advertiser=${advertiser.id}`, { accept: 'image/*' });
    assert.equal(pixel.status, 200);
    assert.equal(pixel.header('content-type'), 'image/gif');
  });

  it('still refuses a type the route does not serve, and an API version other than 1', async () => {
    const csvOnMe = await server.operator.get('/api/me', { accept: 'text/csv' });
    assert.equal(csvOnMe.status, 415);
    assert.match(csvOnMe.json().message, /application\/json, application\/xml/);
    assert.equal((await server.operator.get('/api/me', { accept: 'application/json; version=2' })).status, 415);
    assert.equal((await server.anonymous.get('/api/serve/loader.js', { accept: 'image/png' })).status, 415);
  });
});

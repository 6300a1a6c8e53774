import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../../helpers/serving.ts';

const METRICS_TOKEN = 'scraper-secret-0123456789';

/** The value of one series in Prometheus text (0 when it is absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('request ids, health, readiness and metrics', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ env: { METRICS_TOKEN } });
  });
  after(async () => {
    await server.close();
  });

  it('names every response with a request id, taking a sane one from the proxy', async () => {
    const generated = await server.anonymous.get('/api/health');
    assert.equal(generated.status, 200);
    assert.deepEqual(generated.json(), { status: 'ok' });
    const id = generated.header('x-request-id') ?? '';
    assert.match(id, /^[0-9a-f]{8}-[0-9a-z]+$/);
    assert.notEqual((await server.anonymous.get('/api/health')).header('x-request-id'), id);

    const fromProxy = await server.anonymous.get('/api/me', { headers: { 'X-Request-Id': 'edge-7f3a.42' } });
    assert.equal(fromProxy.status, 401);
    assert.equal(fromProxy.header('x-request-id'), 'edge-7f3a.42');

    for (const insane of ['two words', 'x'.repeat(129), 'a<b>']) {
      const replaced = await server.anonymous.get('/api/health', { headers: { 'X-Request-Id': insane } });
      assert.match(replaced.header('x-request-id') ?? '', /^[0-9a-f]{8}-[0-9a-z]+$/, insane);
    }
  });

  it('answers readiness with the database and Redis checked', async () => {
    const ready = await server.anonymous.get('/api/health/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.json(), { status: 'ok', database: 'ok', redis: 'none', nats: 'none' });
  });

  it('lets operators and the METRICS_TOKEN read the metrics, nobody else', async () => {
    assert.equal((await server.anonymous.get('/api/metrics')).status, 401);
    assert.equal((await server.anonymous.get('/api/metrics', { token: 'nv_wrong' })).status, 401);
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.get('/api/metrics')).status, 403);

    // Prometheus text whatever the Accept header asks for.
    const byOperator = await server.operator.get('/api/metrics', { accept: 'application/xml' });
    assert.equal(byOperator.status, 200, byOperator.text);
    assert.match(byOperator.header('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(byOperator.text, /^# HELP nativa_http_requests_total /m);
    assert.match(byOperator.text, /^nativa_nodejs_eventloop_lag_seconds /m);
    assert.match(byOperator.text, /^nativa_db_pool_connections\{state="waiting"\} 0$/m);

    const byScraper = await server.anonymous.get('/api/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(byScraper.status, 200);
    assert.equal((await server.anonymous.get('/api/metrics', { headers: { Authorization: 'Bearer nope' } })).status, 401);
  });

  it('moves the serving counters and the route histogram with a teaser request and a click', async () => {
    const read = async () => (await server.operator.get('/api/metrics')).text;
    const world = await createWorld(server);
    const before = await read();
    const desktop = { headers: { 'User-Agent': DESKTOP_UA } };
    const teasers = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, desktop);
    assert.equal(teasers.status, 200);
    const served = teasers.json().teasers as { url: string; view: string }[];
    assert.equal(served.length, 2);
    const beacon = await server.anonymous.request('POST', '/api/serve/views', {
      raw: served.map((teaser) => teaser.view).join('\n'),
      contentType: 'text/plain',
      ...desktop,
    });
    assert.equal(beacon.status, 204);
    await engineOf(server).impressions.flush();
    const click = await server.anonymous.get(new URL(served[0]?.url ?? '').pathname, desktop);
    assert.equal(click.status, 302);
    await engineOf(server).settled();
    const after = await read();

    const moved = (series: string) => sample(after, series) - sample(before, series);
    assert.equal(moved('nativa_teaser_requests_total'), 1);
    assert.equal(moved('nativa_teasers_served_total'), 2);
    assert.equal(moved('nativa_teaser_views_total'), 2);
    assert.equal(moved('nativa_clicks_accepted_total'), 1);
    assert.equal(moved('nativa_clicks_billed_total'), 1);
    assert.equal(moved('nativa_settlement_lag_seconds'), 0);
    const route = 'route="/api/serve/blocks/:blockId/teasers",method="GET",status="200"';
    assert.equal(moved(`nativa_http_requests_total{${route}}`), 1);
    assert.equal(moved(`nativa_http_request_duration_seconds_count{${route}}`), 1);
    assert.equal(moved('nativa_http_requests_total{route="/api/serve/click/:token",method="GET",status="302"}'), 1);
  });
});

describe('readiness while a dependency is down', () => {
  it('answers 503 naming the database when it fails, while liveness stays 200', async () => {
    const server = await startTestServer();
    try {
      // Pull the storage out from under the running server: every query fails from here on.
      const { database } = server.server.context;
      await database.close();
      server.server.context.database = { ...database, close: async () => undefined };
      assert.equal((await server.anonymous.get('/api/health')).status, 200);
      const ready = await server.anonymous.get('/api/health/ready');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.json(), { status: 'unavailable', database: 'down', redis: 'none', nats: 'none' });
    } finally {
      await server.close();
    }
  });

  it('answers 503 naming Redis, while liveness stays 200', async () => {
    // Port 9 (discard) on loopback: nothing listens there, so every Redis command fails.
    const server = await startTestServer({ config: { redisUrl: 'redis://127.0.0.1:9' } });
    try {
      assert.equal((await server.anonymous.get('/api/health')).status, 200);
      const ready = await server.anonymous.get('/api/health/ready');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.json(), { status: 'unavailable', database: 'ok', redis: 'down', nats: 'none' });
    } finally {
      await server.close();
    }
  });
});

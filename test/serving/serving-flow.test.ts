import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { balanceOf, createWorld, DESKTOP_UA, engineOf, ledgerSum, pathOf, statsTotals } from './serving-helpers.ts';

describe('serving: teasers, click, billing', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('serves teasers, bills a click once, and the rollup shows it', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server);
    const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, { headers: { 'User-Agent': DESKTOP_UA } });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('access-control-allow-origin'), '*');
    const body = response.json();
    assert.equal(body.teasers.length, 2);
    assert.deepEqual(body.teasers.map((t: { id: number }) => t.id), world.offerIds);
    const click = await server.anonymous.get(pathOf(body.teasers[0].url), { headers: { 'User-Agent': DESKTOP_UA } });
    assert.equal(click.status, 302);
    assert.match(click.header('location') ?? '', /^https:\/\/shop\.example\.test\/product\?id=[A-Za-z0-9_-]{22}$/);
    await engineOf(server).impressions.flush();
    const totals = await statsTotals(db, { campaignIds: world.campaignIds });
    assert.equal(totals.views, 2);
    assert.equal(totals.clicks, 1);
    assert.ok(totals.spend > 0);
    assert.equal(await balanceOf(db, world.advertiserId), 100_000_000 - totals.spend);
    assert.equal(await balanceOf(db, world.publisherId), totals.income);
    assert.equal(await ledgerSum(db, world.publisherId, 'click_revenue'), totals.income);
    const again = await server.anonymous.get(pathOf(body.teasers[0].url), { headers: { 'User-Agent': DESKTOP_UA } });
    assert.equal(again.status, 302);
    assert.equal((await statsTotals(db, { campaignIds: world.campaignIds })).clicks, 1);
  });
});

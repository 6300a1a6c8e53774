import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, pathOf, type World } from '../../../helpers/serving.ts';

/**
 * Conversions are recorded only by whom they should be: the advertiser's server with its postback
 * key (authenticated), or the browser that followed the click link, through the pixel (at most once
 * per goal, counted apart). A click id alone, readable from the click link, records nothing.
 */
describe('serving: authenticated postbacks and the browser-bound pixel', () => {
  let server: TestServer;
  const desktop = { headers: { 'User-Agent': DESKTOP_UA } };

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function clickOnce(world: World) {
    await engineOf(server).refresh();
    const served = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, desktop);
    const url = served.json<{ teasers: { url: string }[] }>().teasers[0]?.url ?? '';
    const click = await server.anonymous.get(pathOf(url), desktop);
    assert.equal(click.status, 302);
    const clickId = new URL(click.header('location') ?? '').searchParams.get('id') ?? '';
    const cookie = (click.header('set-cookie') ?? '').split(';')[0] ?? '';
    await engineOf(server).settled();
    return { clickId, cookie, setCookie: click.header('set-cookie') ?? '' };
  }

  async function conversionRows(clickId: string) {
    return server.server.context.db
      .selectFrom('conversions')
      .select(['goal', 'source'])
      .where('click_id', '=', clickId)
      .orderBy('goal')
      .execute();
  }

  async function statisticsRow(world: World) {
    const response = await world.advertiser.get(`/api/advertiser/statistics?filter[id]=${world.campaignIds[0]}`);
    assert.equal(response.status, 200, response.text);
    return response.json<{ orders: number; authenticatedOrders: number; pixelOrders: number }[]>()[0];
  }

  it('refuses a postback without the key of the click’s advertiser, and counts one with it as authenticated', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const { clickId } = await clickOnce(world);
    const path = `/api/serve/conversion?click_id=${clickId}&goal=purchase`;
    const none = await server.anonymous.get(path);
    assert.equal(none.status, 401, none.text);
    assert.equal(none.json<{ code: number }>().code, 2020);
    assert.equal((await world.advertiser.get('/api/advertiser/postback-key')).json<{ exists: boolean }>().exists, false);

    const made = await world.advertiser.post('/api/advertiser/postback-key');
    assert.equal(made.status, 201, made.text);
    const { key, prefix } = made.json<{ key: string; prefix: string }>();
    assert.match(key, /^nvpb_[A-Za-z0-9_-]{43}$/);
    assert.ok(key.startsWith(prefix));
    const state = (await world.advertiser.get('/api/advertiser/postback-key')).json<Record<string, unknown>>();
    assert.deepEqual([state.exists, state.prefix, 'key' in state], [true, prefix, false], 'the key is shown once');
    const stored = await server.server.context.db.selectFrom('postback_keys').selectAll().executeTakeFirstOrThrow();
    assert.ok(!stored.key_hash.toString('utf8').includes(key), 'only a hash is stored');

    const other = await server.createAccount('advertiser');
    const otherKey = (await other.client.post('/api/advertiser/postback-key')).json<{ key: string }>().key;
    assert.equal((await server.anonymous.get(`${path}&key=${otherKey}`)).status, 401, 'another advertiser’s key');
    assert.equal((await server.anonymous.get(`${path}&key=${key}x`)).status, 401, 'a wrong key');
    assert.deepEqual(await conversionRows(clickId), []);

    const byHeader = await server.anonymous.get(path, { headers: { 'X-Postback-Key': key } });
    assert.equal(byHeader.status, 200, byHeader.text);
    assert.deepEqual(byHeader.json(), { result: 'recorded' });
    const byParameter = await server.anonymous.get(`/api/serve/conversion?click_id=${clickId}&goal=registration&key=${key}`);
    assert.deepEqual(byParameter.json(), { result: 'recorded' });
    assert.deepEqual(await conversionRows(clickId), [
      { goal: 1, source: 'postback' },
      { goal: 2, source: 'postback' },
    ]);
    // One read, the conversion fields of it: the served count beside them is flushed on its own
    // timer and may move between two reads.
    const row = await statisticsRow(world);
    assert.deepEqual(
      { orders: row?.orders, authenticatedOrders: row?.authenticatedOrders, pixelOrders: row?.pixelOrders },
      { orders: 2, authenticatedOrders: 2, pixelOrders: 0 },
    );

    const rotated = (await world.advertiser.post('/api/advertiser/postback-key')).json<{ key: string }>().key;
    assert.equal((await server.anonymous.get(`${path}&key=${key}`)).status, 401, 'a rotated key stops working');
    assert.deepEqual((await server.anonymous.get(`${path}&key=${rotated}`)).json(), { result: 'duplicate' });
    assert.equal((await world.advertiser.delete('/api/advertiser/postback-key')).status, 204);
    assert.equal((await server.anonymous.get(`${path}&key=${rotated}`)).status, 401, 'a deleted key stops working');
    assert.equal((await world.advertiser.delete('/api/advertiser/postback-key')).status, 404);
  });

  it('counts the pixel only from the browser that followed the link, once per goal, marked as the pixel’s', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const { clickId, cookie, setCookie } = await clickOnce(world);
    assert.match(setCookie, /^nv_cv=[A-Za-z0-9_-]{16};/);
    for (const attribute of ['Secure', 'HttpOnly', 'SameSite=None', 'Path=/api/serve/pixel.gif']) {
      assert.ok(setCookie.includes(attribute), attribute);
    }
    const pixel = (goal: string, headers: Record<string, string> = {}) =>
      server.anonymous.get(`/api/serve/pixel.gif?click_id=${clickId}&goal=${goal}`, { headers });
    // Whoever knows the click id, without the browser's cookie: a GIF, and nothing counted.
    const strangers: Record<string, string>[] = [{}, { Cookie: 'nv_cv=AAAAAAAAAAAAAAAA' }, { Cookie: `nv_cv=${clickId}` }];
    for (const headers of strangers) {
      const answer = await pixel('purchase', headers);
      assert.deepEqual([answer.status, answer.header('content-type')], [200, 'image/gif']);
    }
    assert.deepEqual(await conversionRows(clickId), []);
    for (let round = 0; round < 3; round += 1) await pixel('purchase', { Cookie: cookie });
    await pixel('intermediate', { Cookie: `other=1; ${cookie}` });
    assert.deepEqual(await conversionRows(clickId), [
      { goal: 1, source: 'pixel' },
      { goal: 3, source: 'pixel' },
    ]);
    const row = await statisticsRow(world);
    assert.deepEqual([row?.orders, row?.authenticatedOrders, row?.pixelOrders], [2, 0, 2]);
    const purchases = (
      await world.advertiser.get(`/api/advertiser/statistics?filter[id]=${world.campaignIds[0]}&targetId=1`)
    ).json<{ orders: number; pixelOrders: number }[]>()[0];
    assert.deepEqual([purchases?.orders, purchases?.pixelOrders], [1, 1], 'the goals of targetId');
    const xml = await world.advertiser.get(`/api/advertiser/statistics?filter[id]=${world.campaignIds[0]}`, {
      headers: { Accept: 'application/xml' },
    });
    assert.match(xml.text, /<authenticatedOrders>0<\/authenticatedOrders><pixelOrders>2<\/pixelOrders>/);
  });

  it('keeps the tags of a browser’s latest clicks: each of them converts by pixel', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const first = await clickOnce(world);
    await engineOf(server).refresh();
    const served = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, desktop);
    const url = served.json<{ teasers: { url: string }[] }>().teasers[0]?.url ?? '';
    const second = await server.anonymous.get(pathOf(url), { headers: { ...desktop.headers, Cookie: first.cookie } });
    const secondId = new URL(second.header('location') ?? '').searchParams.get('id') ?? '';
    const both = (second.header('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(both, /^nv_cv=[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{16}$/);
    await engineOf(server).settled();
    for (const clickId of [first.clickId, secondId]) {
      await server.anonymous.get(`/api/serve/pixel.gif?click_id=${clickId}&goal=purchase`, { headers: { Cookie: both } });
      assert.deepEqual(await conversionRows(clickId), [{ goal: 1, source: 'pixel' }]);
    }
  });

  it('answers the pixel’s GIF to anything, without a click id or goal', async () => {
    for (const query of ['', '?goal=purchase', '?click_id=x', '?click_id=x&goal=sale']) {
      const answer = await server.anonymous.get(`/api/serve/pixel.gif${query}`);
      assert.deepEqual([answer.status, answer.header('content-type')], [200, 'image/gif'], query);
    }
  });
});

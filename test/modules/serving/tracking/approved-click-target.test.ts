import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MODERATION } from '../../../../src/modules/moderation/index.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, MOBILE_UA, pathOf, type World } from '../../../helpers/serving.ts';

/**
 * A click link leads only to a URL moderation approved: while an edit of an approved ad waits for
 * moderation, the ad keeps serving what was approved and every link of it (served before or after
 * the edit) leads to the approved URL; an approval moves them to the new one, a rejection nowhere.
 */
describe('serving: click links lead only to approved URLs', () => {
  let server: TestServer;
  const desktop = { headers: { 'User-Agent': DESKTOP_UA } };
  const mobile = { headers: { 'User-Agent': MOBILE_UA } };

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function serve(world: World) {
    await engineOf(server).refresh();
    const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, desktop);
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { id: number; title: string; domain: string; url: string }[] }>().teasers;
  }

  async function follow(link: string, options = desktop) {
    const response = await server.anonymous.get(pathOf(link), options);
    return { status: response.status, location: response.header('location') };
  }

  async function approvedWorld() {
    const world = await createWorld(server, {
      ads: [{ bidMicros: 200_000, url: 'https://approved.example.test/p', urlMobile: 'https://m.approved.example.test/p' }],
    });
    const [id] = world.offerIds as [number];
    return { world, id };
  }

  it('an edited ad keeps serving its approved version, and old and new links lead to the approved URL', async () => {
    const { world, id } = await approvedWorld();
    const [old] = await serve(world);
    assert.ok(old);
    const edited = await world.advertiser.put(`/api/advertiser/offers/${id}`, {
      title: 'Unreviewed headline',
      url: 'https://unreviewed.example.test/p',
      url_mobile: 'https://m.unreviewed.example.test/p',
    });
    assert.equal(edited.status, 204, edited.text);
    await engineOf(server).refresh();
    assert.deepEqual(await follow(old.url), { status: 302, location: 'https://approved.example.test/p' });
    assert.deepEqual(await follow(old.url, mobile), { status: 302, location: 'https://m.approved.example.test/p' });

    const [during] = await serve(world);
    assert.ok(during, 'the approved version keeps serving while the edit waits');
    assert.deepEqual([during.id, during.title, during.domain], [id, old.title, 'approved.example.test']);
    assert.deepEqual(await follow(during.url), { status: 302, location: 'https://approved.example.test/p' });

    const approved = await server.operator.put(`/api/admin/offers/${id}`, { status: MODERATION.approved });
    assert.equal(approved.status, 200, approved.text);
    await engineOf(server).refresh();
    assert.deepEqual(await follow(old.url), { status: 302, location: 'https://unreviewed.example.test/p' });
    const [now] = await serve(world);
    assert.deepEqual([now?.title, now?.domain], ['Unreviewed headline', 'unreviewed.example.test']);
  });

  it('the approved URL holds when the ad leaves the snapshot too (paused), and a second edit keeps it', async () => {
    const { world, id } = await approvedWorld();
    const [old] = await serve(world);
    assert.ok(old);
    for (const url of ['https://first.example.test/p', 'https://second.example.test/p']) {
      const edited = await world.advertiser.put(`/api/advertiser/offers/${id}`, { url });
      assert.equal(edited.status, 204, edited.text);
    }
    const paused = await world.advertiser.put(`/api/advertiser/offers/${id}`, { active: false });
    assert.equal(paused.status, 204, paused.text);
    assert.deepEqual(await serve(world), []);
    assert.deepEqual(await follow(old.url), { status: 302, location: 'https://approved.example.test/p' });
  });

  it('a rejected edit leads nowhere, and so does an ad sent back to moderation without ever being approved', async () => {
    const { world, id } = await approvedWorld();
    const [old] = await serve(world);
    assert.ok(old);
    await world.advertiser.put(`/api/advertiser/offers/${id}`, { url: 'https://bad.example.test/p' });
    const rejected = await server.operator.put(`/api/admin/offers/${id}`, { status: MODERATION.rejected, reason: 'No.' });
    assert.equal(rejected.status, 200, rejected.text);
    await engineOf(server).refresh();
    assert.equal((await follow(old.url)).status, 404);
    const resubmitted = await world.advertiser.post(`/api/advertiser/offers/resubmit/${id}`);
    assert.equal(resubmitted.status, 200, resubmitted.text);
    await engineOf(server).refresh();
    assert.deepEqual(await serve(world), [], 'a resubmitted ad has no approved version: it waits unserved');
    assert.equal((await follow(old.url)).status, 404);
  });

  it('an operator sending an approved ad back to moderation keeps its approved version serving', async () => {
    const { world, id } = await approvedWorld();
    const back = await server.operator.put(`/api/admin/offers/${id}`, { status: MODERATION.moderation });
    assert.equal(back.status, 200, back.text);
    const [teaser] = await serve(world);
    assert.equal(teaser?.id, id);
    assert.deepEqual(await follow(teaser.url), { status: 302, location: 'https://approved.example.test/p' });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordTraffic } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { BOT_UA, DESKTOP_UA, engineOf } from '../../helpers/serving.ts';
import {
  ADDRESSES,
  type ClickFate,
  createTrafficWorld,
  fatesOf,
  followLink,
  personAgent,
  personClicks,
  requestTeasers,
  SITE_URL,
  sendViews,
  sweepInvalidTraffic,
  type Visit,
} from '../../helpers/traffic.ts';

const HEADLESS_UA = DESKTOP_UA.replace('Chrome/', 'HeadlessChrome/');

/**
 * Labelled traffic through the real serving endpoints, one category at a time: people stay billed,
 * each kind of invalid traffic is refused on arrival or refunded after, with its reason. Removing
 * any rule makes its test fail.
 */
describe('invalid traffic: labelled visitors through the serving endpoints', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true', IVT_ALLOW_DEV_HOSTS: 'false' } });
  });
  after(() => server.close());

  const person = (n: number): Visit => ({ address: ADDRESSES.consumerUs(n), userAgent: personAgent(n) });
  const fate = async (clickId: string | undefined): Promise<ClickFate | undefined> => {
    assert.ok(clickId, 'the click reached the ad with a click id');
    await sweepInvalidTraffic(server);
    return (await fatesOf(server, [clickId])).get(clickId);
  };
  /** A link served to a person, followed by someone else. */
  const linkFollowedBy = async (blockId: number, visit: Visit) => {
    const [teaser] = await requestTeasers(server, blockId, person(1));
    assert.ok(teaser, 'a person is served');
    server.clock.advance(1500);
    await sendViews(server, [teaser], person(1));
    server.clock.advance(3000);
    return fate(await followLink(server, teaser, visit));
  };

  it('a person who views, thinks and clicks stays billed', async () => {
    const world = await createTrafficWorld(server, 'human');
    assert.deepEqual(await fate(await personClicks(server, world.blockIds[0] ?? 0, person(7))), { fate: 'billed' });
    const mobile = await personClicks(server, world.blockIds[0] ?? 0, {
      address: ADDRESSES.mobileUs(3),
      userAgent: personAgent(3),
    });
    assert.deepEqual(await fate(mobile), { fate: 'billed' }, 'a mobile network of the same country');
  });

  it('declared robots get no teasers; their clicks are recorded unbilled as bot', async () => {
    const world = await createTrafficWorld(server, 'bot');
    const blockId = world.blockIds[0] ?? 0;
    assert.deepEqual(await requestTeasers(server, blockId, { address: ADDRESSES.consumerUs(9), userAgent: BOT_UA }), []);
    assert.deepEqual(await linkFollowedBy(blockId, { address: ADDRESSES.consumerUs(9), userAgent: BOT_UA }), {
      fate: 'refused',
      reason: 'bot',
    });
    assert.deepEqual(
      await linkFollowedBy(blockId, { address: ADDRESSES.consumerUs(9), userAgent: 'python-requests/2.32.3' }),
      { fate: 'refused', reason: 'bot' },
      'an HTTP library',
    );
    assert.deepEqual(
      await linkFollowedBy(blockId, { address: ADDRESSES.consumerUs(9) }),
      { fate: 'refused', reason: 'bot' },
      'a click link followed without a User-Agent: no browser does that',
    );
    assert.equal(
      (await requestTeasers(server, blockId, { address: ADDRESSES.consumerUs(9) })).length,
      1,
      'a teasers request without a User-Agent is served (server-side integrations send none)',
    );
  });

  it('headless and automated browsers get no teasers; their clicks are refused as automation', async () => {
    const world = await createTrafficWorld(server, 'automation');
    const blockId = world.blockIds[0] ?? 0;
    const headless = { address: ADDRESSES.consumerUs(11), userAgent: HEADLESS_UA };
    assert.deepEqual(await requestTeasers(server, blockId, headless), []);
    assert.deepEqual(await linkFollowedBy(blockId, headless), { fate: 'refused', reason: 'automation' });
    const hinted = {
      address: ADDRESSES.consumerUs(12),
      userAgent: DESKTOP_UA,
      headers: { 'Sec-CH-UA': '"HeadlessChrome";v="131", "Chromium";v="131"' },
    };
    assert.deepEqual(
      await linkFollowedBy(blockId, hinted),
      { fate: 'refused', reason: 'automation' },
      'named by its client hints',
    );
  });

  it('data-centre addresses get no teasers; their clicks are refused as datacenter', async () => {
    const world = await createTrafficWorld(server, 'datacenter');
    const blockId = world.blockIds[0] ?? 0;
    const cloud = { address: ADDRESSES.cloud(5), userAgent: personAgent(5) };
    assert.deepEqual(await requestTeasers(server, blockId, cloud), []);
    assert.deepEqual(await linkFollowedBy(blockId, cloud), { fate: 'refused', reason: 'datacenter' });
    const metrics = await server.operator.get('/api/metrics', { headers: { 'X-Forwarded-Proto': 'https' } });
    assert.equal(metrics.status, 200, metrics.text);
    assert.match(metrics.text, /nativa_invalid_clicks_total\{reason="datacenter"\} [1-9]/);
    assert.match(metrics.text, /nativa_invalid_teaser_requests_total\{reason="datacenter"\} [1-9]/);
  });

  it("a view beacon from a data-centre address counts no view; a person's counts", async () => {
    const world = await createTrafficWorld(server, 'datacenter-views');
    const [teaser] = await requestTeasers(server, world.blockIds[0] ?? 0, person(31));
    assert.ok(teaser, 'a person is served');
    const engine = engineOf(server);
    const { views, viewRefusals } = engine.tally;
    const refusedBefore = viewRefusals.invalid;
    server.clock.advance(1500);
    await sendViews(server, [teaser], { address: ADDRESSES.cloud(31), userAgent: personAgent(31) });
    await engine.impressions.flush();
    assert.equal(engine.tally.views, views, 'no view counted from the cloud');
    assert.equal(engine.tally.viewRefusals.invalid, refusedBefore + 1);
    await sendViews(server, [teaser], person(31));
    await engine.impressions.flush();
    assert.equal(engine.tally.views, views + 1, 'the same token from the person counts');
  });

  it('prefetch and prerender requests get no teasers and bill no click', async () => {
    const world = await createTrafficWorld(server, 'prefetch');
    const blockId = world.blockIds[0] ?? 0;
    const speculative: Record<string, string>[] = [
      { 'Sec-Purpose': 'prefetch' },
      { 'Sec-Purpose': 'prefetch;prerender' },
      { Purpose: 'prefetch' },
    ];
    for (const headers of speculative) {
      assert.deepEqual(await requestTeasers(server, blockId, { ...person(13), headers }), [], JSON.stringify(headers));
    }
    assert.deepEqual(await linkFollowedBy(blockId, { ...person(13), headers: { 'X-Moz': 'prefetch' } }), {
      fate: 'refused',
      reason: 'prefetch',
    });
  });

  it("a block answers only on its site's domains; a click from another site's page is refused as foreign_site", async () => {
    const world = await createTrafficWorld(server, 'foreign');
    const blockId = world.blockIds[0] ?? 0;
    const from = (origin: string): Visit => ({ ...person(15), headers: { Origin: origin } });
    assert.deepEqual(await requestTeasers(server, blockId, from('https://copycat.example.net')), []);
    assert.deepEqual(await requestTeasers(server, blockId, from('http://localhost:3000')), [], 'development hosts are off');
    assert.equal((await requestTeasers(server, blockId, from('https://m.news.example.org'))).length, 1, 'a subdomain');
    assert.equal((await requestTeasers(server, blockId, from('https://www.news.example.org'))).length, 1, 'www');
    await server.server.context.db
      .updateTable('sites')
      .set({ domains: ['mirror.example.com'] })
      .where('id', '=', world.siteId)
      .execute();
    await engineOf(server).refresh();
    assert.equal(
      (await requestTeasers(server, blockId, from('https://mirror.example.com'))).length,
      1,
      "one of the site's domains",
    );
    const bare = { address: ADDRESSES.consumerUs(15), userAgent: personAgent(15), headers: { Origin: '' } };
    assert.equal((await requestTeasers(server, blockId, bare)).length, 1, 'no Origin nor Referer: not foreign');
    const copycat = { ...person(15), headers: { Referer: 'https://copycat.example.net/page' } };
    assert.deepEqual(await linkFollowedBy(blockId, copycat), { fate: 'refused', reason: 'foreign_site' });
    assert.equal(SITE_URL, 'https://news.example.org');
  });

  it('a click within a second of the teasers, never viewable, is refunded as no_opportunity', async () => {
    const world = await createTrafficWorld(server, 'no-opportunity');
    const visit = person(17);
    const [teaser] = await requestTeasers(server, world.blockIds[0] ?? 0, visit);
    assert.ok(teaser);
    server.clock.advance(200);
    assert.deepEqual(await fate(await followLink(server, teaser, visit)), { fate: 'refunded', reason: 'no_opportunity' });
    const viewed = await personClicks(server, world.blockIds[0] ?? 0, person(18), 0);
    assert.deepEqual(await fate(viewed), { fate: 'billed' }, 'viewable first: an opportunity, however quick the click');
  });

  it('one visitor clicking one advertiser again and again: the clicks beyond the allowance are refunded as repeat_click', async () => {
    const world = await createTrafficWorld(server, 'repeat', { ads: 1 });
    const visit = person(19);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const id = await personClicks(server, world.blockIds[0] ?? 0, visit);
      assert.ok(id);
      ids.push(id);
      server.clock.advance(60_000);
    }
    await sweepInvalidTraffic(server);
    const fates = await fatesOf(server, ids);
    const metrics = await server.operator.get('/api/metrics', { headers: { 'X-Forwarded-Proto': 'https' } });
    assert.match(metrics.text, /nativa_invalid_clicks_total\{reason="repeat_click"\} 2/, 'refunds are counted by reason');
    assert.deepEqual(
      ids.map((id) => fates.get(id)),
      [
        { fate: 'billed' },
        { fate: 'billed' },
        { fate: 'billed' },
        { fate: 'refunded', reason: 'repeat_click' },
        { fate: 'refunded', reason: 'repeat_click' },
      ],
    );
  });

  it('a link clicked from another country and another network than it was served to is refunded as network_mismatch', async () => {
    const world = await createTrafficWorld(server, 'mismatch');
    const blockId = world.blockIds[0] ?? 0;
    assert.deepEqual(await linkFollowedBy(blockId, { address: ADDRESSES.consumerRu(21), userAgent: personAgent(21) }), {
      fate: 'refunded',
      reason: 'network_mismatch',
    });
    assert.deepEqual(
      await linkFollowedBy(blockId, { address: ADDRESSES.mobileUs(21), userAgent: personAgent(1) }),
      { fate: 'billed' },
      'another network of the same country (a phone leaving Wi-Fi)',
    );
  });

  it("a block's clicks from one network with a CTR far above the network's are refunded as concentration", async () => {
    const world = await createTrafficWorld(server, 'concentration', { blocks: 2 });
    const [farmBlock = 0, normalBlock = 0] = world.blockIds;
    // The rest of the network today: a million teasers served, a thousand clicks (0.1 %).
    await recordTraffic(server.server.context.db, [
      {
        at: server.clock.now(),
        campaignId: 1,
        offerId: world.offerIds[0] ?? 0,
        siteId: world.siteId,
        blockId: normalBlock,
        device: 1,
        served: 1_000_000,
        clicks: 1000,
      },
    ]);
    // A farm in one /24: 25 "visitors", each a different address and browser, each viewing and clicking.
    const farm: string[] = [];
    for (let n = 0; n < 25; n += 1) {
      const id = await personClicks(server, farmBlock, { address: `81.2.69.${n + 1}`, userAgent: personAgent(n) });
      assert.ok(id);
      farm.push(id);
    }
    await engineOf(server).impressions.flush();
    await sweepInvalidTraffic(server);
    const fates = await fatesOf(server, farm);
    const refunded = farm.filter((id) => fates.get(id)?.fate === 'refunded');
    assert.equal(refunded.length, 25, 'every farm click refunded');
    assert.deepEqual(fates.get(farm[0] ?? ''), { fate: 'refunded', reason: 'concentration' });
  });
});

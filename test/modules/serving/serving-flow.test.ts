import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import {
  BOT_UA,
  balanceOf,
  createWorld,
  DESKTOP_UA,
  engineOf,
  ledgerSum,
  MOBILE_UA,
  pathOf,
  servedAndViews,
  statsTotals,
} from '../../helpers/serving.ts';

describe('serving: teasers, clicks, billing', () => {
  let server: TestServer;
  const desktop = { headers: { 'User-Agent': DESKTOP_UA } };
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function teasers(blockId: number, headers: Record<string, string> = desktop.headers) {
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, { headers });
    assert.equal(response.status, 200, response.text);
    return response.json<{
      block: number;
      teasers: { id: number; title: string; price: string; image: string | null; url: string; view: string }[];
    }>();
  }

  it('answers JSON as text in schema order, and XML and `fields=` through the object, alike', async () => {
    const world = await createWorld(server);
    const path = `/api/serve/blocks/${world.blockId}/teasers`;
    const json = await server.anonymous.get(path, desktop);
    assert.equal(json.status, 200, json.text);
    assert.equal(json.header('content-type'), 'application/json; charset=utf-8');
    const body = json.json();
    assert.deepEqual(Object.keys(body), ['block', 'label', 'currency', 'personalised', 'teasers']);
    assert.deepEqual(Object.keys(body.teasers[0]), ['id', 'title', 'description', 'price', 'domain', 'image', 'url', 'view']);
    const fields = await server.anonymous.get(`${path}?fields=block,teasers`, desktop);
    assert.equal(fields.status, 200, fields.text);
    assert.deepEqual(Object.keys(fields.json()), ['block', 'teasers']);
    const xml = await server.anonymous.get(path, { headers: { ...desktop.headers, Accept: 'application/xml' } });
    assert.equal(xml.status, 200, xml.text);
    assert.match(xml.header('content-type') ?? '', /^application\/xml/);
    assert.match(
      xml.text,
      new RegExp(
        `<response><block>${world.blockId}</block><label>Sponsored</label><currency>[A-Z]{3}</currency><personalised>true</personalised><teasers><item><id>${body.teasers[0].id}</id>`,
      ),
    );
    // Each answer served its teasers afresh: three links, each its own.
    const urls = new Set([body.teasers[0].url, fields.json().teasers[0].url]);
    assert.equal(urls.size, 2);
  });

  it('serves teasers in auction order, bills a click once, and the rollup and ledger agree', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server);
    const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, desktop);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('access-control-allow-origin'), '*');
    assert.equal(response.header('cache-control'), 'no-store');
    const body = response.json();
    assert.equal(body.block, world.blockId);
    assert.deepEqual(
      body.teasers.map((teaser: { id: number }) => teaser.id),
      world.offerIds,
    );
    assert.equal(body.teasers[0].image, null);
    const click = await server.anonymous.get(pathOf(body.teasers[0].url), desktop);
    assert.equal(click.status, 302);
    const location = click.header('location') ?? '';
    assert.match(location, /^https:\/\/shop\.example\.test\/product\?id=[A-Za-z0-9_-]{22}$/);
    // Second price: the runner-up's bid (0.30) plus 0.01, at equal CTR estimates.
    const charge = 310_000;
    const share = 217_000;
    await engineOf(server).impressions.flush();
    // The redirect came once the click was accepted; its money and statistics follow in a settlement.
    await engineOf(server).settled();
    // Both teasers were served; no beacon said they were seen (viewability.test.ts sends them).
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 2, views: 0 });
    assert.deepEqual(await statsTotals(db, { campaignIds: world.campaignIds }), {
      views: 0,
      clicks: 1,
      spend: charge,
      income: share,
      purchases: 0,
      registrations: 0,
      intermediate: 0,
    });
    assert.equal(await balanceOf(db, world.advertiserId), 100_000_000 - charge);
    assert.equal(await balanceOf(db, world.publisherId), share);
    assert.equal(await ledgerSum(db, world.advertiserId, 'click_charge'), -charge);
    assert.equal(await ledgerSum(db, world.publisherId, 'click_revenue'), share);
    const clickId = new URL(location).searchParams.get('id') ?? '';
    const clickRow = await db.selectFrom('clicks').selectAll().where('click_id', '=', clickId).executeTakeFirstOrThrow();
    assert.deepEqual([clickRow.status, clickRow.charge_micros, clickRow.publisher_micros], ['billed', charge, share]);
    const margin = await db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('reference', '=', clickRow.billing_batch)
      .where('kind', '=', 'click_margin')
      .execute();
    assert.equal(margin.length, 1, "the margin row of the click's billing batch");
    assert.equal(margin[0]?.amount_micros, charge - share);

    const again = await server.anonymous.get(pathOf(body.teasers[0].url), desktop);
    assert.equal(again.status, 302, 'a duplicate click still redirects');
    assert.equal(again.header('location'), location);
    await engineOf(server).settled();
    assert.equal((await statsTotals(db, { campaignIds: world.campaignIds })).clicks, 1);
    assert.equal(await balanceOf(db, world.advertiserId), 100_000_000 - charge);
  });

  it('answers 404 for an unknown block and for a block of a site that is not active', async () => {
    const world = await createWorld(server);
    assert.equal((await server.anonymous.get('/api/serve/blocks/999999/teasers', desktop)).status, 404);
    await server.server.context.db.updateTable('sites').set({ status: 2 }).where('id', '=', world.siteId).execute();
    await engineOf(server).refresh();
    const banned = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, desktop);
    assert.equal(banned.status, 404);
    assert.equal(banned.json().status, 404);
  });

  /** A dead link is a small HTML page for the visitor's browser, never a redirect. */
  function assertDeadLink(response: { status: number; header(name: string): string | undefined; text: string }) {
    assert.equal(response.status, 404, response.text);
    assert.equal(response.header('location'), undefined);
    assert.match(response.header('content-type') ?? '', /^text\/html/);
    assert.match(response.text, /^<!doctype html><html lang="en">.*<title>Link not found<\/title>/);
  }

  /** The token of a click link with another ad id written into its payload (the MAC no longer fits). */
  function withOfferId(token: string, offerId: number): string {
    const bytes = Buffer.from(token, 'base64url');
    bytes.writeUInt32BE(offerId, 17);
    return bytes.toString('base64url');
  }

  it('never redirects a forged or unreadable link, even to a rejected ad whose id it names', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, {
      ads: [{ bidMicros: 200_000 }, { bidMicros: 100_000, url: 'https://refused.example.test/{click_id}' }],
    });
    const [, refusedId] = world.offerIds;
    assert.ok(refusedId !== undefined);
    await db.updateTable('offers').set({ moderation_status: 2 }).where('id', '=', refusedId).execute();
    await engineOf(server).refresh();
    const [teaser] = (await teasers(world.blockId)).teasers;
    assert.ok(teaser);
    const token = pathOf(teaser.url).split('/').at(-1) ?? '';

    assertDeadLink(await server.anonymous.get(`/api/serve/click/${withOfferId(token, refusedId)}`, desktop));
    const flipped = token.slice(0, 70) + (token[70] === 'A' ? 'B' : 'A') + token.slice(71);
    assertDeadLink(await server.anonymous.get(`/api/serve/click/${flipped}`, desktop));
    // A browser's Accept admits XML (q=0.9): the page still goes out as HTML, not wrapped in XML.
    assertDeadLink(
      await server.anonymous.get(`/api/serve/click/${flipped}`, {
        ...desktop,
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
      }),
    );
    // The teaser's impression token carries the same payload under the other half of the MAC: no click.
    assertDeadLink(await server.anonymous.get(`/api/serve/click/${teaser.view}`, desktop));
    assertDeadLink(await server.anonymous.get('/api/serve/click/not-a-token', desktop));
    assertDeadLink(await server.anonymous.get('/api/serve/click/%01', desktop));
    await engineOf(server).settled();
    const rows = await db.selectFrom('clicks').select('click_id').where('campaign_id', 'in', world.campaignIds).execute();
    assert.deepEqual(rows, [], 'no forged click is recorded');
    // The genuine link still works.
    assert.equal((await server.anonymous.get(pathOf(teaser.url), desktop)).status, 302);
  });

  it('redirects a genuine expired, repeated or robot link only to an ad neither rejected nor deleted', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }, { bidMicros: 100_000 }] });
    const [first, second] = (await teasers(world.blockId)).teasers;
    assert.ok(first !== undefined && second !== undefined);
    assert.equal((await server.anonymous.get(pathOf(first.url), desktop)).status, 302);
    await db.updateTable('offers').set({ moderation_status: 2 }).where('id', '=', first.id).execute();
    await db
      .updateTable('offers')
      .set({ deleted_at: new Date(server.clock.now()) })
      .where('id', '=', second.id)
      .execute();
    await engineOf(server).refresh();
    // Repeated, robot's and (below) expired: all genuine, none leads to what moderation refused or its owner deleted.
    assertDeadLink(await server.anonymous.get(pathOf(first.url), desktop));
    assertDeadLink(await server.anonymous.get(pathOf(second.url), { headers: { 'User-Agent': BOT_UA } }));
    server.clock.advance(60 * 60 * 1000 + 1);
    try {
      assertDeadLink(await server.anonymous.get(pathOf(second.url), desktop));
    } finally {
      server.clock.advance(-(60 * 60 * 1000 + 1));
    }
    await engineOf(server).settled();
    const statuses = await db.selectFrom('clicks').select('status').where('campaign_id', 'in', world.campaignIds).execute();
    assert.deepEqual(
      statuses.map((row) => row.status),
      ['billed'],
      'only the first click, before the rejection, is recorded',
    );
  });

  it('redirects expired and robot clicks without billing them', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const served = await teasers(world.blockId);
    const [teaser] = served.teasers;
    assert.ok(teaser);

    const robot = await server.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': BOT_UA } });
    assert.equal(robot.status, 302);
    await engineOf(server).settled();
    const robotRow = await db.selectFrom('clicks').selectAll().where('offer_id', '=', teaser.id).executeTakeFirstOrThrow();
    assert.equal(robotRow.status, 'bot');
    assert.equal(robotRow.charge_micros, 0);
    // A human click on the same link afterwards: the link was used, so it is not billed either.
    assert.equal((await server.anonymous.get(pathOf(teaser.url), desktop)).status, 302);

    const later = await teasers(world.blockId);
    server.clock.advance(60 * 60 * 1000 + 1);
    try {
      const expired = await server.anonymous.get(pathOf(later.teasers[0]?.url ?? ''), desktop);
      assert.equal(expired.status, 302);
      assert.equal(expired.header('location'), 'https://shop.example.test/product?id=');
    } finally {
      server.clock.advance(-(60 * 60 * 1000 + 1));
    }
    await engineOf(server).settled();
    assert.equal(await balanceOf(db, world.advertiserId), 100_000_000);
    assert.equal((await statsTotals(db, { campaignIds: world.campaignIds })).clicks, 0);
    assert.equal(await balanceOf(db, world.publisherId), 0);
  });

  it('sends mobile visitors to url_mobile', async () => {
    const world = await createWorld(server, {
      ads: [
        {
          bidMicros: 200_000,
          url: 'https://shop.example.test/d/{click_id}',
          urlMobile: 'https://m.shop.example.test/{click_id}',
        },
      ],
    });
    const served = await teasers(world.blockId, { 'User-Agent': MOBILE_UA });
    const click = await server.anonymous.get(pathOf(served.teasers[0]?.url ?? ''), { headers: { 'User-Agent': MOBILE_UA } });
    assert.equal(click.status, 302);
    assert.match(click.header('location') ?? '', /^https:\/\/m\.shop\.example\.test\/[A-Za-z0-9_-]{22}$/);
    await engineOf(server).settled();
    const row = await server.server.context.db
      .selectFrom('clicks')
      .selectAll()
      .where('offer_id', '=', world.offerIds[0] ?? 0)
      .executeTakeFirstOrThrow();
    assert.equal(row.device, 2);
  });

  it('counts conversions once per click and goal, by postback and by pixel', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const served = await teasers(world.blockId);
    const click = await server.anonymous.get(pathOf(served.teasers[0]?.url ?? ''), desktop);
    const clickId = new URL(click.header('location') ?? '').searchParams.get('id') ?? '';
    const made = await world.advertiser.post('/api/advertiser/postback-key');
    assert.equal(made.status, 201, made.text);
    const key = made.json<{ key: string }>().key;
    const postback = (goal: string) => server.anonymous.get(`/api/serve/conversion?click_id=${clickId}&goal=${goal}&key=${key}`);
    const first = await postback('purchase');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json(), { result: 'recorded' });
    assert.deepEqual((await postback('purchase')).json(), { result: 'duplicate' });
    // The pixel counts from the browser that followed the link: the one with its cookie.
    const cookie = (click.header('set-cookie') ?? '').split(';')[0] ?? '';
    const pixel = await server.anonymous.get(`/api/serve/pixel.gif?click_id=${clickId}&goal=registration`, {
      headers: { Cookie: cookie },
    });
    assert.equal(pixel.status, 200);
    assert.equal(pixel.header('content-type'), 'image/gif');
    await server.anonymous.get(`/api/serve/pixel.gif?click_id=${clickId}&goal=registration`, { headers: { Cookie: cookie } });
    const totals = await statsTotals(db, { campaignIds: world.campaignIds });
    assert.equal(totals.purchases, 1);
    assert.equal(totals.registrations, 1);
    assert.equal(totals.intermediate, 0);

    const unknown = await server.anonymous.get(`/api/serve/conversion?click_id=nope&goal=purchase&key=${key}`);
    assert.equal(unknown.status, 404);
    const badGoal = await postback('sale');
    assert.equal(badGoal.status, 422);
    assert.equal(badGoal.json().errors[0].field, 'goal');
    const missing = await server.anonymous.get('/api/serve/conversion?goal=purchase');
    assert.equal(missing.status, 422);
    assert.equal(missing.json().errors[0].field, 'click_id');
  });

  it('stops serving an advertiser whose balance runs out, and does not bill clicks beyond it', async () => {
    const db = server.server.context.db;
    // Alone in its block, each click costs the reserve price, 0.01.
    const world = await createWorld(server, { balance: 0.02, ads: [{ bidMicros: 500_000 }] });
    const links: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const served = await teasers(world.blockId);
      assert.equal(served.teasers.length, 1, `impression ${index} still serves`);
      links.push(served.teasers[0]?.url ?? '');
    }
    for (const link of links) assert.equal((await server.anonymous.get(pathOf(link), desktop)).status, 302);
    await engineOf(server).settled();
    assert.equal(await balanceOf(db, world.advertiserId), 0);
    assert.equal((await statsTotals(db, { campaignIds: world.campaignIds })).clicks, 2);
    assert.equal((await teasers(world.blockId)).teasers.length, 0, 'nothing serves once the money is gone');
    await engineOf(server).refresh();
    assert.equal((await teasers(world.blockId)).teasers.length, 0);
  });

  it('honours the campaign daily click limit and budget and the advertiser daily budget', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }] });
    const campaignId = world.campaignIds[0] ?? 0;
    await db.updateTable('campaigns').set({ daily_click_limit: 1 }).where('id', '=', campaignId).execute();
    await engineOf(server).refresh();
    const first = await teasers(world.blockId);
    const second = await teasers(world.blockId);
    await server.anonymous.get(pathOf(first.teasers[0]?.url ?? ''), desktop);
    await server.anonymous.get(pathOf(second.teasers[0]?.url ?? ''), desktop);
    await engineOf(server).settled();
    assert.equal((await statsTotals(db, { campaignIds: [campaignId] })).clicks, 1, 'the second click is over the limit');
    assert.equal((await teasers(world.blockId)).teasers.length, 0);

    // The next day the limit starts again.
    server.clock.advance(86_400_000);
    try {
      await engineOf(server).refresh();
      assert.equal((await teasers(world.blockId)).teasers.length, 1);
      await db
        .updateTable('campaigns')
        .set({ daily_click_limit: 0, daily_budget_micros: 10_000 })
        .where('id', '=', campaignId)
        .execute();
      await engineOf(server).refresh();
      const served = await teasers(world.blockId);
      await server.anonymous.get(pathOf(served.teasers[0]?.url ?? ''), desktop);
      assert.equal((await teasers(world.blockId)).teasers.length, 0, 'campaign budget of 0.01 spent');
      // A refresh reads today's spend from the rollup, which has the click once it is settled.
      await engineOf(server).settled();
      await db.updateTable('campaigns').set({ daily_budget_micros: 0 }).where('id', '=', campaignId).execute();
      await db.updateTable('accounts').set({ daily_budget_micros: 10_000 }).where('id', '=', world.advertiserId).execute();
      await engineOf(server).refresh();
      assert.equal((await teasers(world.blockId)).teasers.length, 0, 'advertiser daily budget of 0.01 spent');
    } finally {
      server.clock.advance(-86_400_000);
    }
  });

  it('takes changes in the database into account after a refresh: paused, unapproved, deleted', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }, { bidMicros: 100_000 }, { bidMicros: 100_000 }] });
    const [a = 0, b = 0, c = 0] = world.offerIds;
    assert.equal((await teasers(world.blockId)).teasers.length, 3);
    await db.updateTable('offers').set({ active: false }).where('id', '=', a).execute();
    await db.updateTable('offers').set({ deleted_at: new Date() }).where('id', '=', b).execute();
    await db
      .updateTable('campaigns')
      .set({ archived: true })
      .where('id', '=', world.campaignIds[2] ?? 0)
      .execute();
    await engineOf(server).refresh();
    assert.deepEqual((await teasers(world.blockId)).teasers, []);
    await db
      .updateTable('campaigns')
      .set({ archived: false })
      .where('id', '=', world.campaignIds[2] ?? 0)
      .execute();
    await engineOf(server).refresh();
    assert.deepEqual(
      (await teasers(world.blockId)).teasers.map((teaser) => teaser.id),
      [c],
    );
  });

  it('applies site, block and device coefficients to the ranking', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }, { bidMicros: 200_000 }] });
    const [high = 0, low = 0] = world.offerIds;
    const [highCampaign = 0, lowCampaign = 0] = world.campaignIds;
    assert.deepEqual(
      (await teasers(world.blockId)).teasers.map((teaser) => teaser.id),
      [high, low],
    );
    await db
      .insertInto('site_coefficients')
      .values({ campaign_id: lowCampaign, site_id: world.siteId, block_id: 0, coef: 2 })
      .execute();
    await engineOf(server).refresh();
    assert.deepEqual(
      (await teasers(world.blockId)).teasers.map((teaser) => teaser.id),
      [low, high],
    );
    // A block coefficient overrides the whole-site one.
    await db
      .insertInto('site_coefficients')
      .values({ campaign_id: lowCampaign, site_id: world.siteId, block_id: world.blockId, coef: 0.5 })
      .execute();
    await engineOf(server).refresh();
    assert.deepEqual(
      (await teasers(world.blockId)).teasers.map((teaser) => teaser.id),
      [high, low],
    );
    await db.insertInto('device_coefficients').values({ campaign_id: highCampaign, device: 2, coef: 0.1 }).execute();
    await engineOf(server).refresh();
    assert.deepEqual(
      (await teasers(world.blockId, { 'User-Agent': MOBILE_UA })).teasers.map((teaser) => teaser.id),
      [low, high],
    );
  });

  it('serves retargeting campaigns only to visitors in the advertiser audience', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    await db
      .updateTable('campaigns')
      .set({ is_retarget: true })
      .where('id', '=', world.campaignIds[0] ?? 0)
      .execute();
    await engineOf(server).refresh();
    assert.equal((await teasers(world.blockId)).teasers.length, 0);
    const pixel = await server.anonymous.get(`/api/serve/audience.gif?advertiser=${world.advertiserId}`);
    assert.equal(pixel.status, 200);
    assert.equal(pixel.header('content-type'), 'image/gif');
    const cookie = (pixel.header('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(cookie, /^nv_vid=[A-Za-z0-9_-]{22}$/);
    const member = await db.selectFrom('audience_members').selectAll().where('advertiser_id', '=', world.advertiserId).execute();
    assert.equal(member.length, 1);
    assert.equal((await teasers(world.blockId, { ...desktop.headers, Cookie: cookie })).teasers.length, 1);
    await engineOf(server).refresh();
    assert.equal((await teasers(world.blockId, { ...desktop.headers, Cookie: cookie })).teasers.length, 1, 'after a rebuild too');
    assert.equal((await teasers(world.blockId)).teasers.length, 0);
    const again = await server.anonymous.get(`/api/serve/audience.gif?advertiser=${world.advertiserId}`, {
      headers: { Cookie: cookie },
    });
    assert.equal((again.header('set-cookie') ?? '').split(';')[0], cookie, 'the visitor keeps its id');
    assert.equal((await server.anonymous.get('/api/serve/audience.gif?advertiser=abc')).status, 422);
  });

  it('serves the embed script with cache headers', async () => {
    const script = await server.anonymous.get('/api/serve/loader.js');
    assert.equal(script.status, 200);
    assert.match(script.header('content-type') ?? '', /^application\/javascript/);
    assert.equal(script.header('cache-control'), 'public, max-age=3600');
    assert.match(script.text, /data-nativa-block/);
    // The bound publishers are promised: 4 KB gzipped (about 3.4 KB with viewability, the page and
    // visitor ids and the consent reading).
    const gzipped = gzipSync(script.text).length;
    assert.ok(gzipped <= 4096, `the script stays small: ${gzipped} bytes gzipped`);
  });

  it('answers the serving path with only the headers a cross-origin answer uses', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    const answer = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { ...desktop.headers, Origin: 'https://news.example.test' },
    });
    assert.equal(answer.status, 200);
    const [teaser] = answer.json<{ teasers: { url: string; view: string }[] }>().teasers;
    assert.ok(teaser);
    const beacon = await server.anonymous.request('POST', '/api/serve/views', { raw: teaser.view, contentType: 'text/plain' });
    assert.equal(beacon.status, 204);
    const click = await server.anonymous.get(pathOf(teaser.url), desktop);
    assert.equal(click.status, 302);
    for (const [name, response] of [
      ['teasers', answer],
      ['beacon', beacon],
      ['click', click],
    ] as const) {
      for (const header of ['etag', 'content-security-policy', 'x-request-id', 'vary']) {
        assert.equal(response.header(header), undefined, `${name}: no ${header}`);
      }
    }
    assert.equal(answer.header('x-content-type-options'), 'nosniff');
    assert.equal(answer.header('cache-control'), 'no-store');
    assert.equal(answer.header('strict-transport-security'), undefined, 'HSTS comes with the loader and pages');
    assert.equal(click.header('strict-transport-security'), 'max-age=31536000', 'a click link is a navigation');
    // The rest of the API keeps its conventions.
    const health = await server.anonymous.get('/api/health');
    assert.ok(health.header('x-request-id'));
    assert.equal(health.header('vary'), 'Accept');
  });

  it('echoes a browser origin with credentials so the visitor cookie travels', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { ...desktop.headers, Origin: 'https://news.example.test' },
    });
    assert.equal(response.header('access-control-allow-origin'), 'https://news.example.test');
    assert.equal(response.header('access-control-allow-credentials'), 'true');
  });

  it('serves robots no teasers and counts nothing served for them', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    assert.equal((await teasers(world.blockId, { 'User-Agent': BOT_UA })).teasers.length, 0);
    await engineOf(server).impressions.flush();
    assert.deepEqual(await servedAndViews(server.server.context.db, world.campaignIds), { served: 0, views: 0 });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VIEW_TOKEN_TTL_MS } from '../../../../src/modules/serving/tracking/view-token.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import {
  BOT_UA,
  createWorld,
  DESKTOP_UA,
  engineOf,
  pathOf,
  servedAndViews,
  statsTotals,
  type World,
} from '../../../helpers/serving.ts';

type Teaser = { id: number; url: string; view: string };

const SECRET = 'viewability-test-secret-of-forty-chars!!';

/** The beacon as the loader sends it: navigator.sendBeacon with a string body is text/plain. */
function beacon(server: TestServer, tokens: string[], userAgent = DESKTOP_UA) {
  return server.anonymous.request('POST', '/api/serve/views', {
    raw: tokens.join('\n'),
    contentType: 'text/plain;charset=UTF-8',
    headers: { 'User-Agent': userAgent, Origin: 'https://news.example.test' },
  });
}

async function serve(server: TestServer, world: World): Promise<Teaser[]> {
  const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
    headers: { 'User-Agent': DESKTOP_UA },
  });
  assert.equal(response.status, 200, response.text);
  return response.json<{ teasers: Teaser[] }>().teasers;
}

describe('viewable impressions: the beacon counts views once', () => {
  let server: TestServer;
  let other: TestServer;
  before(async () => {
    // Two instances of one deployment: one database, one signing secret.
    server = await startTestServer({ env: { SIGNING_SECRET: SECRET } });
    other = await startTestServer({ env: { SIGNING_SECRET: SECRET }, database: server.server.context.database });
  });
  after(async () => {
    await other.close();
    await server.close();
  });

  const flush = async () => {
    await engineOf(server).impressions.flush();
    await engineOf(other).impressions.flush();
  };

  it('serving counts served only; a beacon counts one view per token, and a replay nothing', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }, { bidMicros: 200_000 }, { bidMicros: 100_000 }] });
    const teasers = await serve(server, world);
    assert.equal(teasers.length, 3);
    assert.equal(new Set(teasers.map((teaser) => teaser.view)).size, 3, 'one token per teaser');
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 3, views: 0 });

    const tally = engineOf(server).tally;
    const before = { ...tally, viewRefusals: { ...tally.viewRefusals } };
    const [first, second, third] = teasers;
    assert.ok(first && second && third);
    const response = await beacon(server, [first.view, second.view]);
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');
    assert.equal(response.header('access-control-allow-origin'), '*');
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 3, views: 2 });
    assert.equal(tally.views - before.views, 2);

    // The same beacon again (reload, a replaying client), within one flush and after it.
    assert.equal((await beacon(server, [first.view, first.view])).status, 204);
    await flush();
    assert.equal((await beacon(server, [second.view])).status, 204);
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 3, views: 2 });
    assert.equal(tally.viewRefusals.replayed - before.viewRefusals.replayed, 3);

    // Per ad: the first two ads have their view, the third was served but never viewed.
    const perAd = await db
      .selectFrom('stats_daily')
      .select(['offer_id', 'served', 'views'])
      .where('campaign_id', 'in', world.campaignIds)
      .orderBy('offer_id')
      .execute();
    assert.deepEqual(
      perAd.map((row) => [row.offer_id, Number(row.served), Number(row.views)]),
      [
        [first.id, 1, 1],
        [second.id, 1, 1],
        [third.id, 1, 0],
      ].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)),
    );
  });

  it('a token sent to another instance of the deployment is counted once across both', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }] });
    await engineOf(other).refresh();
    const [teaser] = await serve(server, world);
    assert.ok(teaser);
    assert.equal((await beacon(server, [teaser.view])).status, 204);
    assert.equal((await beacon(other, [teaser.view])).status, 204);
    // Both instances hold the token; both flush at once, and exactly one claims it.
    await Promise.all([engineOf(server).impressions.flush(), engineOf(other).impressions.flush()]);
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 1, views: 1 });
    assert.equal((await beacon(other, [teaser.view])).status, 204);
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 1, views: 1 });
  });

  it('forged, expired and robot beacons count nothing, each tallied by its reason', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }, { bidMicros: 200_000 }] });
    const [fresh, old] = await serve(server, world);
    assert.ok(fresh && old);
    const tally = engineOf(server).tally;
    const refusals = { ...tally.viewRefusals };

    const forged = `${fresh.view.slice(0, 40)}${fresh.view[40] === 'A' ? 'B' : 'A'}${fresh.view.slice(41)}`;
    assert.equal((await beacon(server, [forged, 'not-a-token', fresh.url.split('/').pop() ?? ''])).status, 204);
    assert.equal((await beacon(server, [fresh.view], BOT_UA)).status, 204);
    server.clock.advance(VIEW_TOKEN_TTL_MS + 1);
    try {
      assert.equal((await beacon(server, [old.view])).status, 204);
    } finally {
      server.clock.advance(-(VIEW_TOKEN_TTL_MS + 1));
    }
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 2, views: 0 });
    assert.deepEqual(
      {
        forged: tally.viewRefusals.forged - refusals.forged,
        bot: tally.viewRefusals.bot - refusals.bot,
        expired: tally.viewRefusals.expired - refusals.expired,
      },
      { forged: 3, bot: 1, expired: 1 },
    );
    const metrics = await server.operator.get('/api/metrics');
    assert.equal(metrics.status, 200, metrics.text);
    assert.match(metrics.text, /nativa_view_refusals_total\{reason="forged"\} [1-9]/);
    assert.match(metrics.text, /nativa_teasers_served_total [1-9]/);

    // The robot's refusal did not use the token up: the visitor's own beacon still counts.
    assert.equal((await beacon(server, [fresh.view])).status, 204);
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 2, views: 1 });
  });

  it('honours the click link of a teaser that was never viewed', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }] });
    const [teaser] = await serve(server, world);
    assert.ok(teaser);
    const click = await server.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': DESKTOP_UA } });
    assert.equal(click.status, 302);
    await flush();
    await engineOf(server).settled();
    const totals = await statsTotals(db, { campaignIds: world.campaignIds });
    assert.deepEqual([totals.views, totals.clicks, totals.spend], [0, 1, 10_000]);
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 1, views: 0 });
  });

  it('takes a JSON body too, and refuses bodies that are not a list of tokens', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }] });
    const [teaser] = await serve(server, world);
    assert.ok(teaser);
    const cases: [name: string, raw: string, contentType: string, status: number][] = [
      ['an empty text body', '', 'text/plain', 422],
      ['only separators', ' \n,\n ', 'text/plain', 422],
      ['more than 100 tokens', Array(101).fill(teaser.view).join('\n'), 'text/plain', 422],
      ['a token far too long', 'A'.repeat(500), 'text/plain', 422],
      ['a JSON body without tokens', '{}', 'application/json', 422],
      ['an unknown field', JSON.stringify({ tokens: [teaser.view], extra: 1 }), 'application/json', 422],
      ['an unsupported type', teaser.view, 'application/octet-stream', 415],
    ];
    for (const [name, raw, contentType, status] of cases) {
      const response = await server.anonymous.request('POST', '/api/serve/views', {
        raw,
        contentType,
        headers: { 'User-Agent': DESKTOP_UA },
      });
      assert.equal(response.status, status, `${name}: ${response.text}`);
    }
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 1, views: 0 }, 'a refused body counts nothing');
    const json = await server.anonymous.post(
      '/api/serve/views',
      { tokens: [teaser.view] },
      { headers: { 'User-Agent': DESKTOP_UA } },
    );
    assert.equal(json.status, 204, json.text);
    await flush();
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 1, views: 1 });
    // text/plain stays refused everywhere else.
    const elsewhere = await server.operator.request('POST', '/api/admin/users', { raw: 'x', contentType: 'text/plain' });
    assert.equal(elsewhere.status, 415);
  });

  it('forgets counted impressions once their tokens have expired', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }] });
    const [teaser] = await serve(server, world);
    assert.ok(teaser);
    await beacon(server, [teaser.view]);
    await flush();
    // The click link's token begins with its format byte and the click id's 16 bytes.
    const impressionId = Buffer.from(teaser.url.split('/').pop() ?? '', 'base64url')
      .subarray(1, 17)
      .toString('base64url');
    const seen = async () =>
      (await db.selectFrom('viewed_impressions').select('token_id').where('token_id', '=', impressionId).execute()).length;
    assert.equal(await seen(), 1, "the impression's id (its click id) is in the seen-set");
    // A second before the token expires it still verifies: a purge then must not have forgotten
    // its id, or the replay would count again.
    const almostExpired = VIEW_TOKEN_TTL_MS - 1000;
    server.clock.advance(almostExpired);
    try {
      await serve(server, world);
      await engineOf(server).impressions.flush();
      assert.equal((await beacon(server, [teaser.view])).status, 204);
      await engineOf(server).impressions.flush();
      assert.equal(await seen(), 1);
      assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 2, views: 1 });
    } finally {
      server.clock.advance(-almostExpired);
    }
    // Well past expiry (and the minute between purges): the next flush deletes it.
    server.clock.advance(2 * VIEW_TOKEN_TTL_MS);
    try {
      await serve(server, world);
      await engineOf(server).impressions.flush();
      assert.equal(await seen(), 0);
    } finally {
      server.clock.advance(-2 * VIEW_TOKEN_TTL_MS);
    }
  });
});

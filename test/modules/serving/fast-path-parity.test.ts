import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { after, before, describe, it } from 'node:test';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../../helpers/fixtures.ts';
import type { TestResponse } from '../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { BOT_UA, createWorld, DESKTOP_UA, engineOf, pathOf, type World } from '../../helpers/serving.ts';

/*
 * The serving fast path (docs/adr/0056) answers what it takes exactly as Fastify's routes answer
 * it: each request below is sent once with SERVING_FAST_PATH on and once with it off, and the two
 * answers must have the same status, the same headers with the same values, and the same body.
 * What legitimately differs between two answers is normalised first, and only that:
 * - `date`: the time of the answer;
 * - signed tokens (a teaser's click link and impression token): each serve signs a fresh click id;
 * - a redirect's `{click_id}` and the pixel's cookie tag: each accepted click has its own id;
 * - a bid's tokens (its click link, notices and view pixel): each bid signs its own.
 * Every other header is compared by name and value, so a header the fast path drops (or adds)
 * fails the test. Each case also says whether the fast path must take the request or hand it to
 * Fastify, so a comparison of Fastify with itself cannot pass unnoticed.
 */

const desktop = { 'User-Agent': DESKTOP_UA };
const ORIGIN = 'https://news.example.test';

type Path = 'fast' | 'fastify';

describe('serving fast path: the same answers as Fastify', () => {
  let server: TestServer;
  let world: World;

  before(async () => {
    server = await startTestServer();
    world = await createWorld(server, { ads: [{ bidMicros: 500_000 }, { bidMicros: 300_000 }] });
  });
  after(() => server.close());

  const assertSameAnswers = (send: (path: Path) => Promise<TestResponse>, taken: boolean) =>
    assertSameOnBothPaths(server, send, taken);

  const teasersPath = () => `/api/serve/blocks/${world.blockId}/teasers`;
  const get = (path: string, headers: Record<string, string> = desktop, accept?: string) =>
    server.anonymous.get(path, accept === undefined ? { headers } : { headers, accept });

  it('answers a block’s teasers alike, taking the common requests', async () => {
    const plain = await assertSameAnswers(() => get(teasersPath()), true);
    assert.equal(plain.status, 200);
    assert.equal(plain.json().teasers.length, 2);
    await assertSameAnswers(() => get(teasersPath(), { ...desktop, Origin: ORIGIN }), true);
    const pageIds = { fast: 'pagefastpath00001', fastify: 'pagefastify000001' };
    await assertSameAnswers(
      (path) =>
        get(`${teasersPath()}?page=${pageIds[path]}&visitor=visitor0000000001`, {
          ...desktop,
          Origin: ORIGIN,
          Cookie: 'nv_vid=AAAAAAAAAAAAAAAAAAAAAA',
        }),
      true,
    );
    // Consent signals: refused, unreadable, and Global Privacy Control.
    await assertSameAnswers(() => get(`${teasersPath()}?gdpr=1&gdpr_consent=not-a-tc-string`), true);
    await assertSameAnswers(() => get(`${teasersPath()}?gpc=1&us_privacy=1YYN`), true);
    await assertSameAnswers(() => get(teasersPath(), { ...desktop, 'Sec-GPC': '1' }), true);
    // General invalid traffic gets no teasers, on either path.
    const robot = await assertSameAnswers(() => get(teasersPath(), { 'User-Agent': BOT_UA }), true);
    assert.deepEqual(robot.json().teasers, []);
    await assertSameAnswers(() => get(teasersPath(), desktop, 'application/json'), true);
  });

  it('hands Fastify the teasers requests it does not take, answered alike', async () => {
    const unknown = await assertSameAnswers(() => get('/api/serve/blocks/999999/teasers'), false);
    assert.equal(unknown.status, 404);
    assert.equal((await assertSameAnswers(() => get('/api/serve/blocks/0/teasers'), false)).status, 404);
    assert.equal((await assertSameAnswers(() => get(`${teasersPath()}?page=short`), false)).status, 422);
    const xml = await assertSameAnswers(() => get(teasersPath(), desktop, 'application/xml'), false);
    assert.match(xml.header('content-type') ?? '', /^application\/xml/);
    assert.equal((await assertSameAnswers(() => get(`${teasersPath()}?fields=block`), false)).status, 200);
    assert.ok((await assertSameAnswers(() => get(teasersPath(), desktop, 'text/csv'), false)).status >= 400);
    await assertSameAnswers(() => server.anonymous.request('HEAD', teasersPath(), { headers: desktop }), false);
  });

  /** A fresh click link of the block for each path (a link is followed once). */
  async function freshLinks(): Promise<Record<Path, string>> {
    const served = await get(teasersPath());
    const [first, second] = served.json<{ teasers: { url: string }[] }>().teasers;
    assert.ok(first && second);
    return { fast: pathOf(first.url), fastify: pathOf(second.url) };
  }

  it('follows click links alike: fresh, expired, forged, unreadable', async () => {
    const links = await freshLinks();
    // Each path's own link: the two teasers of one answer, whose ads share the landing page's form.
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const fresh = await assertSameAnswers((path) => get(links[path], { ...desktop, Origin: ORIGIN }, browser), true);
    assert.equal(fresh.status, 302);
    assert.ok(fresh.header('set-cookie')?.startsWith('nv_cv='));
    assert.ok(fresh.header('strict-transport-security'));
    await engineOf(server).settled();

    const token = links.fast.split('/').pop() ?? '';
    const forged = `/api/serve/click/${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.equal((await assertSameAnswers(() => get(forged), true)).status, 404);
    assert.equal((await assertSameAnswers(() => get(forged, desktop, 'text/html'), true)).status, 404);
    assert.equal((await assertSameAnswers(() => get('/api/serve/click/%01'), false)).status, 404);
    // A browser's Accept, and one that prefers XML (the dead-link page is HTML all the same).
    assert.equal((await assertSameAnswers(() => get(forged, desktop, browser), true)).status, 404);
    assert.equal((await assertSameAnswers(() => get(forged, desktop, 'application/xml'), true)).status, 404);
    // A repeated link redirects unbilled, with no cookie: the same answer on both paths.
    assert.equal((await assertSameAnswers(() => get(links.fast), true)).status, 302);

    const later = await freshLinks();
    server.clock.advance(60 * 60 * 1000 + 1);
    try {
      const expired = await assertSameAnswers((path) => get(later[path]), true);
      assert.equal(expired.status, 302);
    } finally {
      server.clock.advance(-(60 * 60 * 1000 + 1));
    }
  });

  async function impressionTokens(): Promise<string[]> {
    const served = await get(teasersPath());
    return served.json<{ teasers: { view: string }[] }>().teasers.map((teaser) => teaser.view);
  }

  const beacon = (body: string, contentType = 'text/plain;charset=UTF-8') =>
    server.anonymous.request('POST', '/api/serve/views', { raw: body, contentType, headers: { ...desktop, Origin: ORIGIN } });

  it('takes the text/plain beacon, refusing a bad one with the same error', async () => {
    const tokens = { fast: await impressionTokens(), fastify: await impressionTokens() };
    const counted = await assertSameAnswers((path) => beacon(tokens[path].join('\n')), true);
    assert.equal(counted.status, 204);
    await assertSameAnswers(() => beacon('forged-token another-one'), true);
    await assertSameAnswers(() => beacon(tokens.fast.join(','), 'text/plain'), true);
    const tooMany = await assertSameAnswers(() => beacon(Array.from({ length: 101 }, (_, i) => `t${i}`).join('\n')), true);
    assert.equal(tooMany.status, 422);
    assert.equal((await assertSameAnswers(() => beacon('  \n'), true)).status, 422);
    assert.equal((await assertSameAnswers(() => beacon('x'.repeat(200)), true)).status, 422);
    // A body too large, JSON, XML answers: Fastify's, with the body unread by the fast path.
    assert.equal((await assertSameAnswers(() => beacon('x\n'.repeat(9000)), false)).status, 413);
    const json = JSON.stringify({ tokens: ['forged'] });
    assert.equal((await assertSameAnswers(() => beacon(json, 'application/json'), false)).status, 204);
    assert.equal((await assertSameAnswers(() => beacon('a\nb', 'text/html'), false)).status, 415);
  });

  it('answers the conversion pixel alike: counted, untagged, empty, refused by the schema', async () => {
    const links = await freshLinks();
    const clicks = { fast: await get(links.fast), fastify: await get(links.fastify) };
    await engineOf(server).settled();
    const clickOf = (path: Path) => ({
      clickId: new URL(clicks[path].header('location') ?? '').searchParams.get('id') ?? '',
      cookie: (clicks[path].header('set-cookie') ?? '').split(';')[0] ?? '',
    });
    const pixel = (query: string, headers: Record<string, string> = desktop) => get(`/api/serve/pixel.gif${query}`, headers);
    const counted = await same((path) => {
      const { clickId, cookie } = clickOf(path);
      return pixel(`?click_id=${clickId}&goal=purchase`, { ...desktop, Cookie: cookie });
    }, true);
    assert.equal(counted.header('content-type'), 'image/gif');
    await engineOf(server).settled();
    const rows = await server.server.context.db
      .selectFrom('conversions')
      .select(['click_id', 'source'])
      .where('click_id', 'in', [clickOf('fast').clickId, clickOf('fastify').clickId])
      .execute();
    assert.deepEqual(
      rows.map((row) => row.source),
      ['pixel', 'pixel'],
      'each path counted its own click’s conversion',
    );
    await same((path) => pixel(`?click_id=${clickOf(path).clickId}&goal=registration`), true);
    await same(() => pixel(''), true);
    await same(() => pixel('?click_id=someone&goal=purchase'), true);
    // A goal the schema does not know: Fastify's error handler answers the GIF.
    assert.equal((await same(() => pixel('?click_id=someone&goal=lunch'), false)).status, 200);
    await same(() => get('/api/serve/pixel.gif', desktop, 'application/xml'), false);
  });

  const same = (send: (path: Path) => Promise<TestResponse>, taken: boolean) => assertSameOnBothPaths(server, send, taken);

  it('counts both paths’ answers in one series per route', async () => {
    const text = await server.server.context.metrics.registry.metrics();
    const series = text
      .split('\n')
      .filter(
        (line) => line.startsWith('nativa_http_requests_total{') && line.includes('route="/api/serve/blocks/:blockId/teasers"'),
      )
      .filter((line) => line.includes('status="200"') && line.includes('method="GET"'));
    assert.equal(series.length, 1, series.join('\n'));
  });
});

describe('serving fast path behind a trusted proxy: the same answers as Fastify', () => {
  let server: TestServer;
  let blockId: number;
  let publisherId: number;
  const CONSUMER_US = '73.12.4.5';
  const viaProxy = (address: string, extra: Record<string, string> = {}) => ({
    headers: { ...desktop, 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': address, ...extra },
  });

  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    // Behind a trusted proxy every request needs X-Forwarded-Proto, so the world is made directly.
    const db = server.server.context.db;
    const advertiser = await insertAccount(db, { kind: 'advertiser', username: 'parity-advertiser', depositMicros: 10_000_000 });
    const publisher = await insertAccount(db, { kind: 'publisher', username: 'parity-publisher' });
    publisherId = publisher.id;
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id, geo: ['US'] });
    await insertOffer(db, { campaignId: campaign.id, bidMicros: 300_000 });
    const site = await insertSite(db, { publisherId: publisher.id });
    blockId = (await insertBlock(db, { siteId: site.id })).id;
    await engineOf(server).refresh();
  });
  after(() => server.close());

  it('reads the visitor’s address from X-Forwarded-For as Fastify does, and leaves refusals to it', async () => {
    const path = () => `/api/serve/blocks/${blockId}/teasers`;
    const send = (options: { headers: Record<string, string> }) => () => server.anonymous.get(path(), options);
    // A US consumer address sees the US campaign; a data centre's (8.8.8.8) gets no teasers; the
    // leftmost of several entries is the visitor.
    const us = await assertSameOnBothPaths(server, send(viaProxy(CONSUMER_US)), true);
    assert.equal(us.json().teasers.length, 1);
    const dataCentre = await assertSameOnBothPaths(server, send(viaProxy('8.8.8.8')), true);
    assert.deepEqual(dataCentre.json().teasers, []);
    const chain = await assertSameOnBothPaths(server, send(viaProxy(` ${CONSUMER_US} , 10.0.0.1,10.0.0.2`)), true);
    assert.equal(chain.json().teasers.length, 1);
    // Refused without X-Forwarded-Proto (403), and a link base from X-Forwarded-Host: Fastify's.
    const plain = await assertSameOnBothPaths(server, send({ headers: desktop }), false);
    assert.equal(plain.status, 403);
    await assertSameOnBothPaths(server, send(viaProxy(CONSUMER_US, { 'X-Forwarded-Host': 'ads.example.test' })), false);
  });

  it('bids for the caller’s address as Fastify reads it, and leaves refusals to it', async () => {
    const request = fixture('native-request.json');
    request.site.publisher.id = String(publisherId);
    request.imp[0].tagid = String(blockId);
    // No device address: the caller's (the leftmost X-Forwarded-For entry) is the visitor's.
    delete request.device.ip;
    const auction = (options: { headers: Record<string, string> }) => () =>
      server.anonymous.request('POST', '/api/openrtb2/auction', { ...options, body: request });
    const us = await assertSameOnBothPaths(server, auction(viaProxy(CONSUMER_US)), true);
    assert.equal(us.status, 200, us.text);
    await assertSameOnBothPaths(server, auction(viaProxy('8.8.8.8')), true);
    assert.equal((await assertSameOnBothPaths(server, auction({ headers: desktop }), false)).status, 403);
    await assertSameOnBothPaths(server, auction(viaProxy(CONSUMER_US, { 'X-Forwarded-Host': 'ads.example.test' })), false);
  });
});

const FIXTURES = nodePath.join(import.meta.dirname, 'openrtb', 'fixtures');
const fixture = (name: string) => JSON.parse(readFileSync(nodePath.join(FIXTURES, name), 'utf8'));
/** The auction's body limit in these tests (BODY_LIMIT_BYTES): small enough to send a body past it. */
const BODY_LIMIT = 65_536;
/** The macro an exchange replaces in a notice's URL. */
const AUCTION_PRICE = ['$', '{AUCTION_PRICE}'].join('');

describe('serving fast path for OpenRTB: the same answers as Fastify', () => {
  let server: TestServer;
  let world: World;

  before(async () => {
    server = await startTestServer({ env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
    world = await createWorld(server);
  });
  after(() => server.close());

  const same = (send: (path: Path) => Promise<TestResponse>, taken: boolean) => assertSameOnBothPaths(server, send, taken);

  /** The IAB-shaped native request of the fixtures, for the world's publisher and block. */
  const bidRequest = (change: (request: any) => void = () => undefined) => {
    const request = fixture('native-request.json');
    request.site.publisher.id = String(world.publisherId);
    request.imp[0].tagid = String(world.blockId);
    change(request);
    return request;
  };
  const auction = (
    body: unknown,
    options: { raw?: string | Buffer; contentType?: string; accept?: string; headers?: Record<string, string> } = {},
  ) =>
    server.anonymous.request('POST', '/api/openrtb2/auction', {
      headers: { ...desktop, ...options.headers },
      ...(options.raw === undefined ? { body } : { raw: options.raw }),
      ...(options.contentType === undefined ? {} : { contentType: options.contentType }),
      ...(options.accept === undefined ? {} : { accept: options.accept }),
    });

  /** A fresh bid's notice, click link and view pixel, as paths of this server. */
  async function freshBid() {
    const answer = await auction(bidRequest());
    assert.equal(answer.status, 200, answer.text);
    const bid = answer.json().seatbid[0].bid[0];
    const native = JSON.parse(bid.adm);
    return {
      notice: pathOf(bid.nurl.replace(AUCTION_PRICE, '0.01')),
      click: pathOf(native.link.url),
      view: pathOf(native.imptrackers[0]),
    };
  }
  const freshBids = async () => ({ fast: await freshBid(), fastify: await freshBid() });

  it('answers the auction alike: a bid, no bid, a reason, text/plain JSON', async () => {
    // A bid request writes nothing: neither path wakes the webhook deliverer (a query) for it.
    const webhooks = server.server.context.webhooks;
    const wake = webhooks.wake;
    let wakes = 0;
    webhooks.wake = () => {
      wakes += 1;
    };
    let bid: TestResponse;
    try {
      bid = await same(() => auction(bidRequest()), true);
    } finally {
      webhooks.wake = wake;
    }
    assert.equal(wakes, 0);
    assert.equal(bid.status, 200, bid.text);
    assert.equal(bid.header('x-openrtb-version'), '2.6');
    assert.equal(bid.json().seatbid.length, 1);
    const cors = await same(() => auction(bidRequest(), { headers: { Origin: ORIGIN } }), true);
    assert.equal(cors.header('access-control-allow-origin'), ORIGIN);
    const noBid = await same(() => auction(bidRequest((request) => (request.imp[0].tagid = '999999'))), true);
    assert.equal(noBid.status, 204);
    const robot = await same(() => auction(bidRequest((request) => (request.device.ua = BOT_UA))), true);
    assert.equal(robot.json().nbr, 3);
    const banner = fixture('simple-banner.json');
    banner.site.publisher.id = String(world.publisherId);
    assert.equal((await same(() => auction(banner), true)).json().nbr, 501);
    const text = JSON.stringify(bidRequest());
    const plain = await same(() => auction(undefined, { raw: text, contentType: 'text/plain;charset=UTF-8' }), true);
    assert.equal(plain.status, 200, plain.text);
    assert.equal((await same(() => auction(undefined, { raw: text, contentType: 'application/json' }), true)).status, 200);
  });

  it('refuses a malformed bid request alike, 400 with the reason', async () => {
    const notJson = await same(() => auction(undefined, { raw: '{"id":', contentType: 'application/json' }), true);
    assert.equal(notJson.status, 400);
    assert.equal((await same(() => auction(undefined, { raw: '[1]', contentType: 'text/plain' }), true)).status, 400);
    assert.equal((await same(() => auction(undefined, { raw: '{oops', contentType: 'text/plain' }), true)).status, 400);
    assert.equal((await same(() => auction(undefined, { raw: '   ', contentType: 'application/json' }), true)).status, 400);
    const noImp = await same(() => auction({ id: 'r1', imp: [] }), true);
    assert.equal(noImp.status, 400);
    assert.match(noImp.json().message, /^Malformed bid request: body\/imp /);
    const several = await same(() => auction({ id: 7, imp: [{ id: 1 }], cur: 'USD' }), true);
    assert.match(several.json().message, /^Malformed bid request: /);
    // Text is coerced as the conventions coerce any text body (the id 7 becomes "7"); JSON keeps its types.
    const coerced = await same(() => auction(undefined, { raw: '{"id":7,"imp":[{"id":"1"}]}', contentType: 'text/plain' }), true);
    assert.equal(coerced.json().nbr, 501);
    const badNative = bidRequest((request) => (request.imp[0].native.request = '{oops'));
    assert.equal((await same(() => auction(badNative, { headers: { Origin: ORIGIN } }), true)).status, 400);
    // Not UTF-8: decoded at once, its bad bytes replaced (here: then refused by the schema).
    const latin1 = Buffer.from(`{"id":"r\u00e9","imp":[]}`, 'latin1');
    assert.equal((await same(() => auction(undefined, { raw: latin1 }), true)).status, 400);
    const latin1Id = Buffer.from(`{"id":"r\u00e9","imp":[{"id":"1"}]}`, 'latin1');
    assert.equal((await same(() => auction(undefined, { raw: latin1Id, contentType: 'text/plain' }), true)).json().nbr, 501);
    const tooComplex = { id: 'r1', imp: Array.from({ length: 10_001 }, (_, i) => i) };
    assert.equal((await same(() => auction(tooComplex), true)).status, 413);
  });

  it('hands Fastify the auction requests it does not take, answered alike', async () => {
    const text = JSON.stringify(bidRequest());
    assert.equal((await same(() => auction(bidRequest(), { accept: 'application/xml' }), false)).status, 200);
    assert.equal((await same(() => auction(undefined, { raw: text, contentType: 'text/html' }), false)).status, 415);
    assert.equal(
      (await same(() => auction(undefined, { raw: '<request/>', contentType: 'application/xml' }), false)).status,
      400,
    );
    assert.equal(
      (await same(() => auction(undefined, { raw: 'id=1', contentType: 'application/x-www-form-urlencoded' }), false)).status,
      400,
    );
    const large = JSON.stringify({ ...bidRequest(), ext: { pad: 'x'.repeat(BODY_LIMIT) } });
    assert.equal((await same(() => auction(undefined, { raw: large }), false)).status, 413);
    const withQuery = () =>
      server.anonymous.request('POST', '/api/openrtb2/auction?id=x', { headers: desktop, body: bidRequest() });
    assert.equal((await same(withQuery, false)).status, 200);
  });

  it('takes notices alike: a win, a repeat, forged, a price above the bid', async () => {
    const bids = await freshBids();
    assert.equal((await same((path) => get(bids[path].notice), true)).status, 204);
    assert.equal((await same((path) => get(bids[path].notice.replace('event=win', 'event=billing')), true)).status, 204);
    const forged = bids.fast.notice.replace(/token=([^&]*)[A-Za-z0-9_-]{2}&/, 'token=$1AA&');
    const refused = await same(() => get(forged), true);
    assert.equal(refused.status, 400);
    assert.equal(refused.json().code, 4050);
    assert.equal((await same(() => get(bids.fast.notice.replace('price=0.01', 'price=1000')), true)).status, 400);
    // A notice its schema refuses (no token, an unknown event): Fastify's 422, unread by the fast path.
    assert.equal((await same(() => get('/api/openrtb2/notice'), false)).status, 422);
    assert.equal((await same(() => get(bids.fast.notice.replace('event=win', 'event=loss')), false)).status, 422);
    await same(() => get(bids.fast.notice, desktop, 'application/xml'), false);
  });

  it('answers the view pixel alike: a bid’s token, forged, refused by the schema', async () => {
    const bids = await freshBids();
    const counted = await same((path) => get(bids[path].view), true);
    assert.equal(counted.header('content-type'), 'image/gif');
    await same((path) => get(bids[path].notice), true);
    assert.equal((await same((path) => get(bids[path].view), true)).status, 200);
    assert.equal((await same(() => get('/api/serve/view.gif?token=forged-token'), true)).status, 200);
    assert.equal((await same(() => get('/api/serve/view.gif?token='), false)).status, 200);
    assert.equal((await same(() => get(`/api/serve/view.gif?token=${'x'.repeat(400)}`), false)).status, 200);
  });

  it('follows a bid’s click link alike: to the ad, a dead link', async () => {
    const bids = await freshBids();
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    // Before its win the link leads to the ad unbilled; after it, billed once.
    const unwon = await same((path) => get(bids[path].click, desktop, browser), true);
    assert.equal(unwon.status, 302);
    await same((path) => get(bids[path].notice), true);
    const won = await same((path) => get(bids[path].click, desktop, browser), true);
    assert.equal(won.status, 302);
    await engineOf(server).settled();
    const token = bids.fast.click.split('/').pop() ?? '';
    const forged = `/api/openrtb2/click/${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.equal((await same(() => get(forged, desktop, browser), true)).status, 404);
    assert.equal((await same(() => get(forged, desktop, 'application/xml'), true)).status, 404);
    assert.equal((await same(() => get('/api/openrtb2/click/%01'), false)).status, 404);
  });

  it('counts both paths’ answers in one series per route', async () => {
    const text = await server.server.context.metrics.registry.metrics();
    for (const [route, method, status] of [
      ['/api/openrtb2/auction', 'POST', '200'],
      ['/api/openrtb2/auction', 'POST', '400'],
      ['/api/openrtb2/notice', 'GET', '204'],
      ['/api/serve/view.gif', 'GET', '200'],
    ]) {
      const series = text
        .split('\n')
        .filter((line) => line.startsWith('nativa_http_requests_total{') && line.includes(`route="${route}"`))
        .filter((line) => line.includes(`status="${status}"`) && line.includes(`method="${method}"`));
      assert.equal(series.length, 1, `${method} ${route} ${status}:\n${series.join('\n')}`);
    }
  });

  const get = (path: string, headers: Record<string, string> = desktop, accept?: string) =>
    server.anonymous.get(path, accept === undefined ? { headers } : { headers, accept });
});

/** Sends a request with the fast path on, then off, and returns both answers. */
async function onBothPaths(server: TestServer, send: (path: Path) => Promise<TestResponse>, taken: boolean) {
  const fastPath = server.server.app.fastPath;
  assert.ok(fastPath, 'the app has a fast path');
  const config = server.server.context.config;
  const answers: Record<Path, TestResponse | undefined> = { fast: undefined, fastify: undefined };
  for (const path of ['fast', 'fastify'] as const) {
    config.servingFastPath = path === 'fast';
    const answeredBefore: number = fastPath.answered;
    try {
      answers[path] = await send(path);
    } finally {
      config.servingFastPath = true;
    }
    const tookIt: boolean = fastPath.answered - answeredBefore === 1;
    assert.equal(tookIt, path === 'fast' && taken, `${path}: the fast path ${tookIt ? 'took' : 'did not take'} the request`);
  }
  const { fast, fastify } = answers;
  assert.ok(fast && fastify);
  return { fast, fastify };
}

/** Both paths answer alike: status, every header (name and value), body. */
async function assertSameOnBothPaths(
  server: TestServer,
  send: (path: Path) => Promise<TestResponse>,
  taken: boolean,
): Promise<TestResponse> {
  const { fast, fastify } = await onBothPaths(server, send, taken);
  assert.equal(fast.status, fastify.status, `status: ${fast.text} / ${fastify.text}`);
  assert.deepEqual(normalisedHeaders(fast), normalisedHeaders(fastify));
  assert.equal(normalisedBody(fast.text), normalisedBody(fastify.text));
  return fast;
}

/** Header names and values, but `date`, with signed and per-click values normalised. */
function normalisedHeaders(response: TestResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === 'date' || value === undefined) continue;
    headers[name] = [value]
      .flat()
      .map((text) => text.replace(/id=[A-Za-z0-9_-]{22}/g, 'id=<click>').replace(/^nv_cv=[^;]*/, 'nv_cv=<tags>'))
      .join('\n');
  }
  return headers;
}

function normalisedBody(text: string): string {
  return text
    .replace(/\/api\/(serve|openrtb2)\/click\/[A-Za-z0-9_-]+/g, '/api/$1/click/<token>')
    .replace(/token=[A-Za-z0-9_.-]+/g, 'token=<token>')
    .replace(/"view":"[A-Za-z0-9_-]+"/g, '"view":"<token>"')
    .replace(/<view>[A-Za-z0-9_-]+<\/view>/g, '<view><token></view>');
}

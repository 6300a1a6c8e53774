import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cpmOf } from '../../../../src/modules/serving/openrtb/openrtb-auction.ts';
import { smoothedCtr } from '../../../../src/modules/serving/selection/auction.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { balanceOf, createWorld, DESKTOP_UA, engineOf, pathOf, servedAndViews, type World } from '../../../helpers/serving.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const fixture = (name: string) => JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8'));
const desktop = { headers: { 'User-Agent': DESKTOP_UA } };

/** The IAB-shaped native request, for a real publisher and block. */
function nativeRequestFor(world: { publisherId: number; blockId: number }, change: (request: any) => void = () => undefined) {
  const request = fixture('native-request.json');
  request.site.publisher.id = String(world.publisherId);
  request.imp[0].tagid = String(world.blockId);
  change(request);
  return request;
}

describe('OpenRTB 2.6 native endpoint', () => {
  let server: TestServer;
  let world: World;
  before(async () => {
    server = await startTestServer();
    world = await createWorld(server);
  });
  after(() => server.close());

  const auction = (body: unknown, options: { raw?: string; contentType?: string } = {}) =>
    server.anonymous.post('/api/openrtb2/auction', body, options);

  it('bids on a native impression with Native 1.2 markup, a seat per advertiser and a CPM from the CPC bid', async () => {
    const response = await auction(nativeRequestFor(world));
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('x-openrtb-version'), '2.6');
    const answer = response.json();
    assert.equal(answer.id, '80ce30c53c16e6ede735f123ef6e32361bfc7b22');
    assert.equal(answer.cur, server.server.context.config.currency);
    assert.equal(answer.seatbid.length, 1);
    assert.equal(answer.seatbid[0].seat, String(world.advertiserId));
    const bid = answer.seatbid[0].bid[0];
    assert.equal(bid.impid, '1');
    // The best ad (0.50 per click) at the prior CTR of an ad without traffic.
    assert.equal(bid.crid, String(world.offerIds[0]));
    assert.equal(bid.price, cpmOf(500_000, smoothedCtr(0, 0)));
    assert.deepEqual(bid.adomain, ['shop.example.test']);
    const native = JSON.parse(bid.adm);
    assert.equal(native.ver, '1.2');
    const byId = new Map(native.assets.map((asset: { id: number }) => [asset.id, asset]));
    assert.deepEqual(byId.get(123), {
      id: 123,
      required: 1,
      title: { text: `Ad ${world.campaignIds[0]}`, len: `Ad ${world.campaignIds[0]}`.length },
    });
    assert.deepEqual(byId.get(126), { id: 126, required: 1, data: { type: 1, value: 'shop.example.test' } });
    // The ad has no image: the optional image assets are left out.
    assert.equal(byId.has(128), false);
    assert.match(native.link.url, /\/api\/openrtb2\/click\/[A-Za-z0-9_-]+$/);
    assert.equal(native.imptrackers.length, 1);
    assert.deepEqual(native.eventtrackers, [{ event: 2, method: 1, url: native.imptrackers[0] }]);
    assert.match(bid.nurl, /\/api\/openrtb2\/notice\?token=[A-Za-z0-9_.-]+&event=win&price=\$\{AUCTION_PRICE\}$/);
    assert.equal(bid.burl, bid.nurl.replace('event=win', 'event=billing'));
    // The fixtures' campaigns are in Electronics (category 2): IAB Content Taxonomy 1.0's IAB19.
    assert.deepEqual(bid.cat, ['IAB19']);
    assert.equal(bid.cattax, 1);
    assert.equal(bid.mtype, 4);
    assert.equal(bid.exp, 3600);
  });

  it('counts a won bid served once, its view once when the markup fires its pixel, and bills the click once', async () => {
    const db = server.server.context.db;
    const own = await createWorld(server);
    const before = await balanceOf(db, own.advertiserId);
    const answer = (await auction(nativeRequestFor(own))).json();
    const bid = answer.seatbid[0].bid[0];
    const native = JSON.parse(bid.adm);
    // Both notices, each twice (an exchange's retry): the bid counts served once.
    for (const url of [bid.nurl, bid.burl, bid.nurl, bid.burl]) {
      const notice = await server.anonymous.get(pathOf(url.replace(`\${AUCTION_PRICE}`, '0.0021')));
      assert.equal(notice.status, 204, notice.text);
    }
    for (const _ of [1, 2]) {
      const pixel = await server.anonymous.get(pathOf(native.imptrackers[0]), desktop);
      assert.equal(pixel.status, 200);
      assert.equal(pixel.header('content-type'), 'image/gif');
    }
    const click = await server.anonymous.get(pathOf(native.link.url), desktop);
    assert.equal(click.status, 302);
    assert.match(click.header('location') ?? '', /^https:\/\/shop\.example\.test\/product\?id=/);
    await engineOf(server).impressions.flush();
    await engineOf(server).settled();
    assert.deepEqual(await servedAndViews(db, own.campaignIds), { served: 1, views: 1 });
    const win = await db
      .selectFrom('openrtb_wins')
      .selectAll()
      .where('offer_id', '=', own.offerIds[0] as number)
      .executeTakeFirstOrThrow();
    assert.equal(win.bid_price_micros, Math.round(bid.price * 1_000_000));
    assert.equal(win.clearing_price_micros, 2100, 'the clearing price, exactly, in micros');
    assert.ok(win.won_at !== null && win.win_notice_at !== null && win.billing_notice_at !== null);
    assert.ok((await balanceOf(db, own.advertiserId)) < before, 'the click was billed');
    const billed = await db
      .selectFrom('clicks')
      .select('status')
      .where('offer_id', '=', own.offerIds[0] as number)
      .execute();
    assert.deepEqual(
      billed.map((row) => row.status),
      ['billed'],
    );
  });

  it('answers 204 for an unknown block, a block of another publisher, and an impression that is not native', async () => {
    assert.equal((await auction(nativeRequestFor({ publisherId: world.publisherId, blockId: 999_999 }))).status, 204);
    assert.equal(
      (await auction(nativeRequestFor({ publisherId: world.publisherId + 1000, blockId: world.blockId }))).status,
      204,
    );
    const otherSite = await auction(nativeRequestFor(world, (request) => (request.imp[0].ext = { siteId: world.siteId + 1000 })));
    assert.equal(otherSite.status, 204, 'a block of another site than the impression names');
    const sameSite = await auction(nativeRequestFor(world, (request) => (request.imp[0].ext = { siteId: world.siteId })));
    assert.equal(sameSite.status, 200, sameSite.text);
    // Without site.publisher.id the block id alone decides (any page may embed a block).
    const anonymous = await auction(nativeRequestFor(world, (request) => delete request.site.publisher));
    assert.equal(anonymous.status, 200, anonymous.text);
  });

  it('answers a request without a native impression (a banner) and a robot with no bid and a reason', async () => {
    const banner = fixture('simple-banner.json');
    banner.site.publisher.id = String(world.publisherId);
    banner.imp[0].tagid = String(world.blockId);
    const response = await auction(banner);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json(), { id: banner.id, nbr: 501 });
    const robot = await auction(
      nativeRequestFor(world, (request) => (request.device.ua = 'Googlebot/2.1 (+http://www.google.com/bot.html)')),
    );
    assert.equal(robot.status, 200, robot.text);
    assert.deepEqual(robot.json(), { id: '80ce30c53c16e6ede735f123ef6e32361bfc7b22', nbr: 3 });
  });

  it('honours badv, bcat, cur, the bid floor and COPPA', async () => {
    const ours = await createWorld(server);
    const cases: [string, (request: any) => void][] = [
      ['a blocked advertiser domain', (request) => (request.badv = ['example.test'])],
      ['a blocked category of every ad', (request) => (request.bcat = ['IAB19'])],
      ['a blocked category in a taxonomy Nativa does not map', (request) => Object.assign(request, { bcat: ['596'], cattax: 2 })],
      ['another currency', (request) => (request.cur = ['XTS'])],
      ['a floor above the CPM', (request) => (request.imp[0].bidfloor = 1000)],
      [
        'a floor above the CPM, its currency named',
        (request) => Object.assign(request.imp[0], { bidfloor: 1000, bidfloorcur: 'USD' }),
      ],
      ['COPPA', (request) => (request.regs = { coppa: 1 })],
    ];
    for (const [name, change] of cases) {
      const response = await auction(nativeRequestFor(ours, change));
      assert.equal(response.status, 204, `${name}: ${response.text}`);
    }
    const unrelated = await auction(nativeRequestFor(ours, (request) => (request.badv = ['other.example'])));
    assert.equal(unrelated.status, 200, unrelated.text);
    const otherCategory = await auction(nativeRequestFor(ours, (request) => (request.bcat = ['IAB25', 'IAB13-2'])));
    assert.equal(otherCategory.status, 200, otherCategory.text);
  });

  it('reads a bid request sent as text/plain (a browser’s simple request)', async () => {
    const response = await auction(undefined, { raw: JSON.stringify(nativeRequestFor(world)), contentType: 'text/plain' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.json().seatbid[0].bid[0].impid, '1');
  });

  it('answers a malformed request 400 with the reason, never a 5xx', async () => {
    const malformed: [string, unknown, RegExp][] = [
      ['no impressions', { id: 'r1', imp: [] }, /imp/],
      ['no id', { imp: [{ id: '1' }] }, /id/],
      ['an id of the wrong JSON type', { id: 7, imp: [{ id: '1' }] }, /id/],
      [
        'a native request that is not JSON',
        nativeRequestFor(world, (request) => (request.imp[0].native.request = '{oops')),
        /not valid JSON/,
      ],
      [
        'a native request without assets',
        nativeRequestFor(world, (request) => (request.imp[0].native.request = '{"ver":"1.2"}')),
        /no assets/,
      ],
      [
        'an asset without an id',
        nativeRequestFor(world, (request) => (request.imp[0].native.request = '{"assets":[{"title":{"len":9}}]}')),
        /id/,
      ],
    ];
    for (const [name, body, reason] of malformed) {
      const response = await auction(body);
      assert.equal(response.status, 400, `${name}: ${response.status} ${response.text}`);
      assert.match(response.json().message, reason, name);
    }
    const notJson = await auction(undefined, { raw: '{"id":', contentType: 'application/json' });
    assert.equal(notJson.status, 400);
    const plain = await auction(undefined, { raw: '[1,2]', contentType: 'text/plain' });
    assert.equal(plain.status, 400);
  });
});

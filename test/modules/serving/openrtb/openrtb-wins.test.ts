import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { balanceOf, createWorld, DESKTOP_UA, engineOf, pathOf, servedAndViews, type World } from '../../../helpers/serving.ts';

const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures', 'native-request.json'), 'utf8'));
const desktop = { headers: { 'User-Agent': DESKTOP_UA } };

function nativeRequestFor(world: { publisherId: number; blockId: number }, change: (request: any) => void = () => undefined) {
  const request = structuredClone(fixture);
  request.site.publisher.id = String(world.publisherId);
  request.imp[0].tagid = String(world.blockId);
  change(request);
  return request;
}

interface Bid {
  price: number;
  adm: string;
  nurl: string;
  burl: string;
  crid: string;
  cat?: string[];
}

/**
 * A bid is an offer that may lose (docs/adr/0044): it counts as served, and its click bills and
 * its view counts, only once its win notice (`nurl`) or billing notice (`burl`) arrives.
 */
describe('OpenRTB bids: served on their win, per-ad categories', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const db = () => server.server.context.db;
  const bidOf = async (body: unknown): Promise<Bid> => {
    const response = await server.anonymous.post('/api/openrtb2/auction', body);
    assert.equal(response.status, 200, response.text);
    return response.json().seatbid[0].bid[0];
  };
  const notice = (url: string, price = '') => server.anonymous.get(pathOf(url.replace(`\${AUCTION_PRICE}`, price)));
  const settle = async () => {
    await engineOf(server).impressions.flush();
    await engineOf(server).settled();
  };
  const clicksOf = (offerId: number) =>
    db().selectFrom('clicks').select(['status', 'charge_micros']).where('offer_id', '=', offerId).execute();

  it('does not count a lost bid served, nor its view; its click leads to the ad unbilled', async () => {
    const world = await createWorld(server);
    const balance = await balanceOf(db(), world.advertiserId);
    const bid = await bidOf(nativeRequestFor(world));
    const native = JSON.parse(bid.adm);
    assert.equal((await server.anonymous.get(pathOf(native.imptrackers[0]), desktop)).status, 200);
    const click = await server.anonymous.get(pathOf(native.link.url), desktop);
    assert.equal(click.status, 302);
    assert.match(click.header('location') ?? '', /^https:\/\/shop\.example\.test\/product\?id=$/, 'no click id: not recorded');
    await settle();
    assert.deepEqual(await servedAndViews(db(), world.campaignIds), { served: 0, views: 0 });
    assert.deepEqual(await clicksOf(world.offerIds[0] as number), []);
    assert.equal(await balanceOf(db(), world.advertiserId), balance);
    // The serving routes do not take a bid's tokens: no billing around the win.
    assert.equal((await server.anonymous.get(`/api/serve/click/${native.link.url.split('/').pop()}`, desktop)).status, 404);
  });

  it('counts a view that came before the notice when the notice arrives, once', async () => {
    const world = await createWorld(server);
    const bid = await bidOf(nativeRequestFor(world));
    const pixel = JSON.parse(bid.adm).imptrackers[0];
    assert.equal((await server.anonymous.get(pathOf(pixel), desktop)).status, 200);
    await settle();
    assert.deepEqual(await servedAndViews(db(), world.campaignIds), { served: 0, views: 0 });
    assert.equal((await notice(bid.burl)).status, 204);
    assert.equal((await notice(bid.nurl)).status, 204);
    assert.equal((await server.anonymous.get(pathOf(pixel), desktop)).status, 200);
    await settle();
    assert.deepEqual(await servedAndViews(db(), world.campaignIds), { served: 1, views: 1 });
  });

  it('takes concurrent notices of one bid as one win', async () => {
    const world = await createWorld(server);
    const balance = await balanceOf(db(), world.advertiserId);
    const bid = await bidOf(nativeRequestFor(world));
    const answers = await Promise.all([bid.nurl, bid.burl, bid.nurl, bid.burl, bid.nurl].map((url) => notice(url, '1.5')));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [204, 204, 204, 204, 204],
    );
    await settle();
    assert.deepEqual(await servedAndViews(db(), world.campaignIds), { served: 1, views: 0 });
    const click = await server.anonymous.get(pathOf(JSON.parse(bid.adm).link.url), desktop);
    assert.match(click.header('location') ?? '', /\?id=[A-Za-z0-9_-]{22}$/);
    await settle();
    const clicks = await clicksOf(world.offerIds[0] as number);
    assert.deepEqual(
      clicks.map((row) => row.status),
      ['billed'],
    );
    // The click is billed at the campaign's rules (the serving auction's price, never above its
    // bid per click), not at the clearing CPM; the advertiser pays exactly that.
    const charge = clicks[0]?.charge_micros ?? 0;
    assert.ok(charge > 0 && charge <= 500_000, String(charge));
    assert.equal(await balanceOf(db(), world.advertiserId), balance - charge);
  });

  it('refuses forged notices and impossible clearing prices, and counts nothing for them', async () => {
    const world = await createWorld(server);
    const bid = await bidOf(nativeRequestFor(world));
    const url = new URL(bid.nurl);
    const [click = '', priceMicros = '', mac = ''] = (url.searchParams.get('token') ?? '').split('.');
    const withToken = (token: string) => {
      const changed = new URL(url);
      changed.searchParams.set('token', token);
      // The macro stays a macro for notice() to replace.
      return changed.toString().replace('%24%7BAUCTION_PRICE%7D', `\${AUCTION_PRICE}`);
    };
    const forged: [string, string][] = [
      ['a raised bid price', withToken(`${click}.${Number(priceMicros) * 10}.${mac}`)],
      ['another MAC', withToken(`${click}.${priceMicros}.${'A'.repeat(22)}`)],
      ['no MAC', withToken(`${click}.${priceMicros}`)],
      ['a changed click token', withToken(`${click.slice(0, -2)}AA.${priceMicros}.${mac}`)],
    ];
    for (const [name, url] of forged) {
      const answer = await notice(url, '1');
      assert.equal(answer.status, 400, `${name}: ${answer.text}`);
      assert.equal(answer.json().code, 4050, name);
    }
    for (const price of [String(bid.price + 0.0001), 'abc', '-1', '1e3']) {
      const answer = await notice(bid.nurl, price);
      assert.equal(answer.status, 400, `${price}: ${answer.text}`);
      assert.equal(answer.json().code, 4052, price);
    }
    await settle();
    assert.deepEqual(await servedAndViews(db(), world.campaignIds), { served: 0, views: 0 });
    assert.equal(
      await db()
        .selectFrom('openrtb_wins')
        .select('impression_id')
        .where('offer_id', '=', world.offerIds[0] as number)
        .executeTakeFirst(),
      undefined,
    );
    // The bid's own price is the most a clearing price may be.
    assert.equal((await notice(bid.nurl, String(bid.price))).status, 204);
  });

  it('leaves ads that badv drops uncounted; only the bid that won is served', async () => {
    const world = await createWorld(server, {
      ads: [
        { bidMicros: 500_000, url: 'https://blocked.example/offer' },
        { bidMicros: 300_000, url: 'https://shop.example.test/product' },
      ],
    });
    const bid = await bidOf(nativeRequestFor(world, (request) => (request.badv = ['blocked.example'])));
    assert.equal(bid.crid, String(world.offerIds[1]));
    assert.equal((await notice(bid.nurl)).status, 204);
    await settle();
    assert.deepEqual(await servedAndViews(db(), [world.campaignIds[0] as number]), { served: 0, views: 0 });
    assert.deepEqual(await servedAndViews(db(), [world.campaignIds[1] as number]), { served: 1, views: 0 });
  });

  it('filters ads by blocked and allowed IAB categories, each ad by its own, and names them in cat', async () => {
    const world: World = await createWorld(server);
    const [finance = 0, electronics = 0] = world.campaignIds;
    // The better ad (0.50 per click) is in Finance & Insurance (IAB13), the other in Electronics (IAB19).
    await db().updateTable('campaigns').set({ category_id: 9 }).where('id', '=', finance).execute();
    await engineOf(server).refresh();
    const cases: [string, (request: any) => void, number | undefined, string[] | undefined][] = [
      ['no restriction', () => undefined, world.offerIds[0], ['IAB13']],
      ['its tier-1 code blocked', (request) => (request.bcat = ['IAB13']), world.offerIds[1], ['IAB19']],
      ['a sub-code of its tier-1-only category blocked', (request) => (request.bcat = ['iab13-2']), world.offerIds[1], ['IAB19']],
      ['an unrelated code blocked', (request) => (request.bcat = ['IAB7', 'IAB19-6']), world.offerIds[0], ['IAB13']],
      ['both blocked', (request) => (request.bcat = ['IAB13', 'IAB19']), undefined, undefined],
      ['only its category allowed', (request) => (request.acat = ['IAB19']), world.offerIds[1], ['IAB19']],
      [
        'Content Taxonomy 1.0 named',
        (request) => Object.assign(request, { bcat: ['IAB13'], cattax: 1 }),
        world.offerIds[1],
        ['IAB19'],
      ],
    ];
    for (const [name, change, offerId, cat] of cases) {
      const response = await server.anonymous.post('/api/openrtb2/auction', nativeRequestFor(world, change));
      if (offerId === undefined) {
        assert.equal(response.status, 204, `${name}: ${response.text}`);
        continue;
      }
      assert.equal(response.status, 200, `${name}: ${response.text}`);
      const bid = response.json().seatbid[0].bid[0];
      assert.equal(bid.crid, String(offerId), name);
      assert.deepEqual(bid.cat, cat, name);
    }
    // An ad's own sub-category is more specific than its campaign's: Insurance is IAB13-6, not IAB13-2.
    await db()
      .updateTable('offers')
      .set({ sub_category_id: 903 })
      .where('id', '=', world.offerIds[0] as number)
      .execute();
    await engineOf(server).refresh();
    const specific = await bidOf(nativeRequestFor(world, (request) => (request.bcat = ['IAB13-2'])));
    assert.equal(specific.crid, String(world.offerIds[0]));
    assert.deepEqual(specific.cat, ['IAB13-6']);
    // A category an operator added has no IAB code: its ads carry no cat, and no restricted request takes them.
    const added = await db()
      .insertInto('categories')
      .values({ title: 'Local crafts', parent_id: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db().updateTable('campaigns').set({ category_id: added.id }).where('id', 'in', [finance, electronics]).execute();
    await db().updateTable('offers').set({ sub_category_id: null }).where('id', 'in', world.offerIds).execute();
    await engineOf(server).refresh();
    assert.equal((await bidOf(nativeRequestFor(world))).cat, undefined);
    const restricted = await server.anonymous.post(
      '/api/openrtb2/auction',
      nativeRequestFor(world, (request) => (request.bcat = ['IAB26'])),
    );
    assert.equal(restricted.status, 204, restricted.text);
  });

  // Last: it moves the shared clock past the tokens' lifetime.
  it('lets an unwon bid expire unserved: a notice after its tokens’ lifetime is refused', async () => {
    const world = await createWorld(server);
    const bid = await bidOf(nativeRequestFor(world));
    server.clock.advance(60 * 60 * 1000 + 1);
    const late = await notice(bid.nurl);
    assert.equal(late.status, 410, late.text);
    assert.equal(late.json().code, 4051);
    await settle();
    assert.deepEqual(await servedAndViews(db(), world.campaignIds), { served: 0, views: 0 });
  });
});

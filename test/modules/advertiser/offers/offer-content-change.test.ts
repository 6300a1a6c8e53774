import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MODERATION } from '../../../../src/modules/moderation/index.ts';
import { fieldsOf, jpegUri, pngUri } from '../../../helpers/advertiser.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, type World } from '../../../helpers/serving.ts';

/**
 * Editing after creation: an ad's content (headline, text, landing pages, pictures) sends it back
 * to moderation, its approved version serving meanwhile; a campaign's category sends the campaign
 * back to moderation and out of the serving index; a bid, a switch, a campaign's title and
 * countries do not. Bad input changes nothing.
 */
describe('advertiser: editing ads and campaigns after creation', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function servedIds(world: World): Promise<number[]> {
    await engineOf(server).refresh();
    const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { id: number }[] }>().teasers.map((teaser) => teaser.id);
  }

  async function offerRow(id: number) {
    return server.server.context.db.selectFrom('offers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function campaignRow(id: number) {
    return server.server.context.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('a bid change keeps the ad approved and served', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const [id] = world.offerIds as [number];
    assert.deepEqual(await servedIds(world), [id]);
    const changed = await world.advertiser.put(`/api/advertiser/offers/${id}`, { clickPrice: '0.31' });
    assert.equal(changed.status, 204, changed.text);
    const row = await offerRow(id);
    assert.equal(row.bid_micros, 310_000);
    assert.equal(row.moderation_status, MODERATION.approved);
    assert.deepEqual(await servedIds(world), [id]);
  });

  for (const [name, change] of [
    ['headline', async () => ({ title: 'A new headline' })],
    ['text', async () => ({ description: 'A new teaser text' })],
    ['landing pages', async () => ({ url: 'https://new.example.test/p', url_mobile: 'https://m.new.example.test/p' })],
    ['pictures', async () => ({ rectangle: await pngUri(), square: await jpegUri() })],
  ] as const) {
    it(`a change of its ${name} sends an approved ad back to moderation, its approved version serving`, async () => {
      const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
      const [id] = world.offerIds as [number];
      assert.deepEqual(await servedIds(world), [id]);
      const before = await offerRow(id);
      const body = await change();
      const changed = await world.advertiser.put(`/api/advertiser/offers/${id}`, body);
      assert.equal(changed.status, 204, changed.text);
      const after = await offerRow(id);
      assert.equal(after.moderation_status, MODERATION.moderation);
      assert.equal(after.bid_micros, before.bid_micros, 'the bid is not touched');
      if ('title' in body) assert.equal(after.title, body.title);
      if ('description' in body) assert.equal(after.description, body.description);
      if ('url' in body) assert.deepEqual([after.url, after.url_mobile], [body.url, body.url_mobile]);
      if ('rectangle' in body) {
        assert.notEqual(after.image_wide, before.image_wide);
        assert.notEqual(after.image_square, before.image_square);
      }
      assert.deepEqual(await servedIds(world), [id], 'the approved version serves until the edit is approved');
      const ad = (await world.advertiser.get(`/api/advertiser/offers/${id}`)).json<{ status: number }>();
      assert.equal(ad.status, MODERATION.moderation);
    });
  }

  it('new content clears the reason of a rejection; approval serves the ad again', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const [id] = world.offerIds as [number];
    const rejected = await server.operator.put(`/api/admin/offers/${id}`, {
      status: MODERATION.rejected,
      reason: 'The landing page is not the product.',
    });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal((await offerRow(id)).moderation_reason, 'The landing page is not the product.');
    const changed = await world.advertiser.put(`/api/advertiser/offers/${id}`, { url: 'https://right.example.test/p' });
    assert.equal(changed.status, 204, changed.text);
    const row = await offerRow(id);
    assert.equal(row.moderation_status, MODERATION.moderation);
    assert.equal(row.moderation_reason, null);
    const approved = await server.operator.put(`/api/admin/offers/${id}`, { status: MODERATION.approved });
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual(await servedIds(world), [id]);
  });

  it('bad content is a 422 naming every field, and changes nothing', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const [id] = world.offerIds as [number];
    const before = await offerRow(id);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ description: 'x'.repeat(61) }, ['description']],
      [{ description: '   ' }, ['description']],
      [{ title: ' ' }, ['title']],
      [{ url: 'ftp://example.test/' }, ['url']],
      [{ url: 'https://ok.example.test/', url_mobile: 'not a url' }, ['url_mobile']],
      [{ square: 'data:image/png;base64,AAAA' }, ['square']],
      [{ title: 'Fine', clickPrice: 0 }, ['clickPrice']],
      [{ title: 'Fine', opis: 'spec name' }, ['opis']],
    ];
    for (const [body, fields] of cases) {
      const response = await world.advertiser.put(`/api/advertiser/offers/${id}`, body);
      assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
      assert.deepEqual(fieldsOf(response), fields, JSON.stringify(body));
    }
    assert.deepEqual(await offerRow(id), before);
    assert.deepEqual(await servedIds(world), [id]);
    const other = await server.createAccount('advertiser');
    assert.equal((await other.client.put(`/api/advertiser/offers/${id}`, { title: 'Not mine' })).status, 404);
    assert.deepEqual(await offerRow(id), before);
  });

  it('a campaign’s new title and countries keep it approved; a new category sends it back to moderation', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const [campaignId] = world.campaignIds as [number];
    const [offerId] = world.offerIds as [number];
    const renamed = await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, { title: 'Spring sale', geo: 'de,AT' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json<{ title: string }>().title, 'Spring sale');
    let row = await campaignRow(campaignId);
    assert.deepEqual([row.title, row.geo, row.moderation_status], ['Spring sale', ['DE', 'AT'], MODERATION.approved]);
    assert.equal((await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, { geo: [] })).status, 200);
    assert.deepEqual(await servedIds(world), [offerId]);

    const categories = await server.server.context.db
      .selectFrom('categories')
      .select('id')
      .where('parent_id', 'is', null)
      .where('id', '!=', row.category_id ?? 0)
      .execute();
    const newCategory = categories[0]?.id;
    assert.ok(newCategory !== undefined, 'a second root category exists');
    const moved = await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, { category_id: newCategory });
    assert.equal(moved.status, 200, moved.text);
    row = await campaignRow(campaignId);
    assert.deepEqual([row.category_id, row.moderation_status], [newCategory, MODERATION.moderation]);
    assert.deepEqual(await servedIds(world), [], 'a campaign awaiting moderation is not served');
  });

  it('a bad campaign change is a 422 and changes nothing; leaving Thailand keeps long texts valid', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000, geo: ['TH'] }] });
    const [campaignId] = world.campaignIds as [number];
    const [offerId] = world.offerIds as [number];
    const longText = 'ข'.repeat(80);
    const text = await world.advertiser.put(`/api/advertiser/offers/${offerId}`, { description: longText });
    assert.equal(text.status, 204, text.text);
    const before = await campaignRow(campaignId);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ title: '' }, ['title']],
      [{ title: '   ' }, ['title']],
      [{ geo: 'XX' }, ['geo']],
      [{ geo: 'DE' }, ['geo']],
      [{ category_id: 999_999 }, ['category_id']],
      [{ title: 'Fine', maxmoney: -1 }, ['maxmoney']],
    ];
    for (const [body, fields] of cases) {
      const response = await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, body);
      assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
      assert.deepEqual(fieldsOf(response), fields, JSON.stringify(body));
    }
    assert.deepEqual(await campaignRow(campaignId), before);
    const kept = await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, { geo: 'TH,DE' });
    assert.equal(kept.status, 200, kept.text);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countryOf } from '../../../../src/modules/serving/tracking/visitor.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { DESKTOP_UA, engineOf, pathOf } from '../../../helpers/serving.ts';

describe('serving: geo targeting (client address from X-Forwarded-For behind a trusted proxy)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  after(() => server.close());

  // A consumer network's address (Comcast): Google's 8.8.8.8 is a data centre's, whose requests get no teasers.
  const CONSUMER_US = '73.12.4.5';
  const from = (ip: string) => ({ headers: { 'User-Agent': DESKTOP_UA, 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': ip } });

  it('looks countries up in the bundled database; private addresses have none', () => {
    assert.equal(countryOf('8.8.8.8'), 'US');
    assert.equal(countryOf('::ffff:8.8.8.8'), 'US');
    assert.equal(countryOf('127.0.0.1'), '');
    assert.equal(countryOf('192.168.1.10'), '');
    assert.equal(countryOf('::1'), '');
  });

  it('serves geo-targeted campaigns only in their countries, untargeted ones everywhere', async () => {
    // Behind a trusted proxy every request needs X-Forwarded-Proto, so accounts are made directly.
    const db = server.server.context.db;
    const advertiser = await insertAccount(db, { kind: 'advertiser', username: 'geo-advertiser', depositMicros: 10_000_000 });
    const publisher = await insertAccount(db, { kind: 'publisher', username: 'geo-publisher' });
    const usCampaign = await insertCampaign(db, { advertiserId: advertiser.id, geo: ['US'] });
    const anyCampaign = await insertCampaign(db, { advertiserId: advertiser.id });
    const us = (await insertOffer(db, { campaignId: usCampaign.id, bidMicros: 300_000 })).id;
    const everywhere = (await insertOffer(db, { campaignId: anyCampaign.id, bidMicros: 100_000 })).id;
    const site = await insertSite(db, { publisherId: publisher.id });
    const world = { blockId: (await insertBlock(db, { siteId: site.id })).id };
    await engineOf(server).refresh();
    const ids = async (ip: string) => {
      const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, from(ip));
      assert.equal(response.status, 200, response.text);
      return response.json<{ teasers: { id: number; url: string }[] }>().teasers;
    };
    assert.deepEqual(
      (await ids(CONSUMER_US)).map((teaser) => teaser.id),
      [us, everywhere],
    );
    assert.deepEqual(
      (await ids('127.0.0.1')).map((teaser) => teaser.id),
      [everywhere],
    );
    const [first] = await ids(CONSUMER_US);
    const click = await server.anonymous.get(pathOf(first?.url ?? ''), from(CONSUMER_US));
    assert.equal(click.status, 302);
    await engineOf(server).settled();
    const row = await server.server.context.db
      .selectFrom('clicks')
      .selectAll()
      .where('offer_id', '=', us)
      .executeTakeFirstOrThrow();
    assert.equal(row.country, 'US');
    const stats = await server.server.context.db
      .selectFrom('stats_daily')
      .selectAll()
      .where('offer_id', '=', us)
      .where('clicks', '>', 0)
      .execute();
    assert.equal(stats[0]?.country, 'US');
  });
});

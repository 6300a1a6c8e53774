import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { microsToAmount } from '../../../../src/money.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../../helpers/fixtures.ts';
import type { TestClient } from '../../../helpers/http-client.ts';
import { seededRandom } from '../../../helpers/random.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { DESKTOP_UA, engineOf, MOBILE_UA, pathOf } from '../../../helpers/serving.ts';

/**
 * Explain is the selection serving runs: over seeded random campaigns, coefficients, CTRs,
 * audiences and visitors, the ads explain says win (rank ≤ the block's teaser count) are exactly
 * the teasers served for the same impression, in order, at the same prices. Nothing changes the
 * snapshot between the two (the test clock stands still, so no rebuild brings new CTRs).
 */

interface Winner {
  id: number;
  rank: number;
  price: number;
}

const VISITORS = [undefined, 'agreementVisitorAAAAA1', 'agreementVisitorAAAAA2'] as const;
const COUNTRIES = ['US', 'DE', 'FR'];

describe('explain agrees with serving', () => {
  let server: TestServer;
  const campaigns: { id: number; client: TestClient }[] = [];
  const blocks: number[] = [];
  let publisher: TestClient;

  before(async () => {
    server = await startTestServer();
    const db = server.server.context.db;
    await db.updateTable('campaigns').set({ active: false }).where('active', '=', true).execute();
    const random = seededRandom(17);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    const advertisers = [];
    for (let index = 0; index < 5; index += 1) {
      const advertiser = await server.createAccount('advertiser');
      // One advertiser without money: its ads are skipped for their balance.
      if (index > 0) {
        const topUp = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 50, comment: 'test' });
        assert.equal(topUp.status, 200, topUp.text);
      }
      advertisers.push(advertiser);
    }
    const owner = await server.createAccount('publisher');
    publisher = owner.client;
    const site = await insertSite(db, { publisherId: owner.id });
    for (const teaserCount of [1, 3, 6]) blocks.push((await insertBlock(db, { siteId: site.id, teaserCount })).id);
    const now = server.clock.now();
    for (let index = 0; index < 40; index += 1) {
      const advertiser = pick(advertisers);
      const campaign = await insertCampaign(db, {
        advertiserId: advertiser.id,
        geo: random() < 0.3 ? COUNTRIES.filter(() => random() < 0.5) : [],
        isRetarget: random() < 0.2,
      });
      campaigns.push({ id: campaign.id, client: advertiser.client });
      if (random() < 0.4) {
        const blockId = random() < 0.5 ? 0 : pick(blocks);
        await db
          .insertInto('site_coefficients')
          .values({ campaign_id: campaign.id, site_id: site.id, block_id: blockId, coef: pick([0.5, 1.5, 2, 3]) })
          .execute();
      }
      if (random() < 0.4) {
        await db
          .insertInto('device_coefficients')
          .values({ campaign_id: campaign.id, device: pick([1, 2, 3]), coef: pick([0.5, 2, 4]) })
          .execute();
      }
      const ads = 1 + Math.floor(random() * 3);
      for (let ad = 0; ad < ads; ad += 1) {
        // Few distinct bids: equal scores happen, and their order must agree too.
        const offer = await insertOffer(db, { campaignId: campaign.id, bidMicros: 10_000 * (1 + Math.floor(random() * 6)) });
        if (random() < 0.3) {
          await recordTraffic(db, [
            {
              at: now - 86_400_000,
              campaignId: campaign.id,
              offerId: offer.id,
              siteId: site.id,
              blockId: pick(blocks),
              device: 1,
              views: Math.floor(random() * 2000),
              clicks: Math.floor(random() * 40),
            },
          ]);
        }
      }
    }
    const engine = engineOf(server);
    for (const advertiser of advertisers) {
      if (random() < 0.5) await engine.addToAudience(advertiser.id, VISITORS[1]);
      if (random() < 0.5) await engine.addToAudience(advertiser.id, VISITORS[2]);
    }
    await engine.refresh();
  });
  after(() => server.close());

  /** The winners every campaign's explanation names for one impression, in rank order. */
  const explainedWinners = async (blockId: number, query: string): Promise<Winner[]> => {
    const winners: Winner[] = [];
    for (const campaign of campaigns) {
      const response = await campaign.client.get(`/api/advertiser/campaigns/${campaign.id}/explain?block=${blockId}${query}`);
      assert.equal(response.status, 200, response.text);
      const { ads } = response.json<{ ads: { id: number; rank: number | null; wins: boolean; price: number | null }[] }>();
      for (const ad of ads) {
        if (ad.rank === null || !ad.wins) continue;
        winners.push({ id: ad.id, rank: ad.rank, price: ad.price ?? -1 });
      }
    }
    return winners.sort((a, b) => a.rank - b.rank);
  };

  for (const device of ['desktop', 'mobile'] as const) {
    for (const visitor of VISITORS) {
      it(`over HTTP: the explained winners are the served teasers (${device}, visitor ${visitor ?? 'none'})`, async () => {
        const engine = engineOf(server);
        let served = 0;
        for (const blockId of blocks) {
          const headers: Record<string, string> = { 'User-Agent': device === 'desktop' ? DESKTOP_UA : MOBILE_UA };
          if (visitor !== undefined) headers.Cookie = `nv_vid=${visitor}`;
          const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, { headers });
          assert.equal(response.status, 200, response.text);
          const teasers = response.json<{ teasers: { id: number; url: string }[] }>().teasers.map((teaser, index) => {
            const token = pathOf(teaser.url).split('/').pop() ?? '';
            const claims = engine.signer.verifyClick(token, server.clock.now()).claims;
            assert.ok(claims, 'a readable click token');
            return { id: teaser.id, rank: index + 1, price: microsToAmount(claims.chargeMicros) };
          });
          const query = `&device=${device}${visitor === undefined ? '' : `&visitor=${visitor}`}`;
          assert.deepEqual(await explainedWinners(blockId, query), teasers, `block ${blockId}`);
          const own = await publisher.get(`/api/webmaster/blocks/${blockId}/explain?${query.slice(1)}`);
          assert.equal(own.status, 200, own.text);
          assert.deepEqual(
            own.json<{ teasers: { id: number }[] }>().teasers.map((teaser) => teaser.id),
            teasers.map((teaser) => teaser.id),
          );
          served += teasers.length;
        }
        assert.ok(served > 0, 'something was served');
      });
    }
  }

  it('in the engine: explain and serve agree for every country, device and visitor', async () => {
    const engine = engineOf(server);
    let compared = 0;
    for (const blockId of blocks) {
      const block = engine.block(blockId);
      assert.ok(block);
      for (const country of ['', ...COUNTRIES, 'ZZ']) {
        for (const device of [1, 2, 3] as const) {
          for (const visitorId of VISITORS) {
            const explanation = engine.explain({ blockId, device, country, visitorId });
            assert.ok(explanation);
            const served: { id: number; rank: number; price: number | undefined }[] = (
              await engine.serve({ block, device, country, visitorId })
            ).map((teaser, index) => {
              const claims = engine.signer.verifyClick(teaser.clickToken, server.clock.now()).claims;
              return { id: teaser.ad.offerId, rank: index + 1, price: claims?.chargeMicros };
            });
            const winners = explanation.ranked
              .filter((ad) => ad.rank <= block.teaserCount)
              .map((ad) => ({ id: ad.offerId, rank: ad.rank, price: ad.priceMicros }));
            assert.deepEqual(winners, served, `block ${blockId}, country '${country}', device ${device}, visitor ${visitorId}`);
            assert.ok(explanation.ranked.every((ad) => ad.wins === ad.rank <= block.teaserCount));
            compared += served.length;
          }
        }
      }
    }
    assert.ok(compared > 0);
  });
});

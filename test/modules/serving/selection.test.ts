import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAuction, smoothedCtr } from '../../../src/modules/serving/auction.ts';
import {
  type AdEntry,
  type AdvertiserState,
  type BlockEntry,
  type CampaignState,
  emptySnapshot,
  selectTeasers,
} from '../../../src/modules/serving/serving-index.ts';
import { seededRandom } from '../../helpers/random.ts';

/** A snapshot of random campaigns and ads, sorted as buildSnapshot sorts them. */
function randomSnapshot(seed: number) {
  const random = seededRandom(seed);
  const snapshot = emptySnapshot('2026-03-10');
  const block: BlockEntry = { id: 5, siteId: 3, publisherId: 9, title: 'b', teaserCount: 1 + Math.floor(random() * 6) };
  snapshot.blocks.set(block.id, block);
  const advertisers: AdvertiserState[] = Array.from({ length: 5 }, (_, index) => ({
    id: index + 1,
    balanceMicros: random() < 0.2 ? 0 : 1_000_000,
    dailyBudgetMicros: 0,
    spentTodayMicros: 0,
  }));
  const campaigns: CampaignState[] = Array.from({ length: 40 }, (_, index) => {
    const campaign: CampaignState = {
      id: index + 1,
      advertiser: advertisers[index % advertisers.length] as AdvertiserState,
      geo: random() < 0.3 ? new Set(['US']) : undefined,
      isRetarget: random() < 0.1,
      dailyBudgetMicros: 0,
      dailyClickLimit: random() < 0.1 ? 1 : 0,
      spentTodayMicros: 0,
      clicksToday: random() < 0.5 ? 1 : 0,
      siteCoefficients: new Map(random() < 0.3 ? [[3, 0.1 + random() * 9.9]] : []),
      blockCoefficients: new Map(random() < 0.2 ? [['3:5', 0.1 + random() * 9.9]] : []),
      deviceCoefficients: [1, 1, random() < 0.3 ? 0.1 + random() * 9.9 : 1, 1],
    };
    snapshot.campaigns.set(campaign.id, campaign);
    return campaign;
  });
  let maxFactor = 1;
  for (const campaign of campaigns) {
    for (const coef of [...campaign.siteCoefficients.values(), ...campaign.blockCoefficients.values()])
      maxFactor = Math.max(maxFactor, coef);
  }
  let maxDevice = 1;
  for (const campaign of campaigns) maxDevice = Math.max(maxDevice, ...campaign.deviceCoefficients);
  snapshot.maxFactor = maxFactor * maxDevice;
  for (let index = 0; index < 2000; index += 1) {
    const views = Math.floor(random() * 5000);
    const ad: AdEntry = {
      offerId: index + 1,
      campaign: campaigns[Math.floor(random() * campaigns.length)] as CampaignState,
      bidMicros: 10_000 + Math.floor(random() * 990_000),
      title: '',
      description: '',
      priceText: '',
      image: null,
      url: '',
      urlMobile: '',
      domain: '',
      ctr: smoothedCtr(views, Math.floor(random() * views * 0.05)),
    };
    snapshot.ads.push(ad);
    snapshot.adsById.set(ad.offerId, ad);
  }
  snapshot.ads.sort((a, b) => b.bidMicros * b.ctr - a.bidMicros * a.ctr || a.offerId - b.offerId);
  return { snapshot, block };
}

/** The unpruned reference: every eligible ad with its full coefficient, then the auction. */
function fullAuction(
  snapshot: ReturnType<typeof randomSnapshot>['snapshot'],
  block: BlockEntry,
  device: 1 | 2 | 3,
  country: string,
) {
  const candidates = snapshot.ads.flatMap((ad) => {
    const campaign = ad.campaign;
    const advertiser = campaign.advertiser;
    if (advertiser.balanceMicros <= 0) return [];
    if (campaign.dailyClickLimit > 0 && campaign.clicksToday >= campaign.dailyClickLimit) return [];
    if (campaign.geo && !campaign.geo.has(country)) return [];
    if (campaign.isRetarget) return [];
    const placement =
      campaign.blockCoefficients.get(`${block.siteId}:${block.id}`) ?? campaign.siteCoefficients.get(block.siteId) ?? 1;
    return [{ ad, bidMicros: ad.bidMicros, coefficient: placement * campaign.deviceCoefficients[device], ctr: ad.ctr }];
  });
  return runAuction(candidates, block.teaserCount);
}

describe('teaser selection over the snapshot', () => {
  for (let seed = 1; seed <= 25; seed += 1) {
    for (const [device, country] of [
      [1, ''],
      [2, 'US'],
    ] as const) {
      it(`stopping early gives the full auction's winners and prices (seed ${seed}, device ${device}, country '${country}')`, () => {
        const { snapshot, block } = randomSnapshot(seed);
        const pruned = selectTeasers(snapshot, { block, device, country, visitorId: undefined });
        const full = fullAuction(snapshot, block, device, country);
        assert.deepEqual(
          pruned.map((winner) => [winner.ad.offerId, winner.chargeMicros]),
          full.map((winner) => [winner.ad.offerId, winner.chargeMicros]),
        );
      });
    }
  }
});

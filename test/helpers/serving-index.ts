import { smoothedCtr } from '../../src/modules/serving/selection/auction.ts';
import { emptySnapshot } from '../../src/modules/serving/snapshot/build-snapshot.ts';
import type { AdEntry, AdvertiserState, BlockEntry, CampaignState } from '../../src/modules/serving/snapshot/snapshot.ts';
import { indexAds } from '../../src/modules/serving/snapshot/sorted-index.ts';
import { seededRandom } from './random.ts';

export interface RandomIndexShape {
  advertisers: number;
  campaigns: number;
  ads: number;
  /** The share of advertisers without money. */
  brokeShare: number;
  /** The share of geo-targeted campaigns, and the chance of each country to be in one's list. */
  geoShare: number;
  countryShare: number;
  countries: readonly string[];
  /** Whether the block draws (30 %) to show one ad per campaign. */
  drawCampaignsUnique?: boolean;
}

/**
 * An in-memory serving snapshot of random geo-targeted and retargeting campaigns with limits and
 * coefficients, one block (site 3, block 5), and a visitor `visitor` in some advertisers'
 * audiences. Bids, CTRs and coefficients come from short lists, so that many scores tie, across
 * campaigns too. The same seed and shape give the same snapshot; `random` goes on from there.
 */
export function randomIndexSnapshot(seed: number, shape: RandomIndexShape) {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const snapshot = emptySnapshot('2026-03-10');
  const block: BlockEntry = { id: 5, siteId: 3, publisherId: 9, title: 'b', teaserCount: 1 + Math.floor(random() * 6) };
  if (shape.drawCampaignsUnique) block.campaignsUnique = random() < 0.3;
  snapshot.blocks.set(block.id, block);
  const advertisers: AdvertiserState[] = Array.from({ length: shape.advertisers }, (_, index) => ({
    id: index + 1,
    balanceMicros: random() < shape.brokeShare ? 0 : 1_000_000,
    dailyBudgetMicros: 0,
    spentTodayMicros: 0,
  }));
  for (const advertiser of advertisers) snapshot.advertisers.set(advertiser.id, advertiser);
  const campaigns: CampaignState[] = Array.from({ length: shape.campaigns }, (_, index) => ({
    id: index + 1,
    advertiser: pick(advertisers),
    geo: random() < shape.geoShare ? new Set(shape.countries.filter(() => random() < shape.countryShare)) : undefined,
    isRetarget: random() < 0.2,
    dailyBudgetMicros: 0,
    dailyClickLimit: random() < 0.1 ? 1 : 0,
    spentTodayMicros: 0,
    clicksToday: random() < 0.5 ? 1 : 0,
    siteCoefficients: new Map(random() < 0.3 ? [[3, pick([0.5, 2, 4])]] : []),
    blockCoefficients: new Map(random() < 0.2 ? [['3:5', pick([0.5, 2, 4])]] : []),
    deviceCoefficients: [1, 1, random() < 0.3 ? pick([0.5, 2, 4]) : 1, 1],
  }));
  for (const campaign of campaigns) snapshot.campaigns.set(campaign.id, campaign);
  snapshot.maxFactor = 16;
  for (let index = 0; index < shape.ads; index += 1) {
    const ad: AdEntry = {
      offerId: index + 1,
      campaign: pick(campaigns),
      bidMicros: 10_000 * (1 + Math.floor(random() * 20)),
      title: `ad ${index + 1}`,
      description: '',
      priceText: '',
      image: null,
      wideImage: null,
      url: '',
      urlMobile: '',
      domain: 'shop.test',
      ctr: smoothedCtr(Math.floor(random() * 3) * 100, Math.floor(random() * 3)),
    };
    snapshot.ads.push(ad);
    snapshot.adsById.set(ad.offerId, ad);
  }
  snapshot.selection = indexAds(snapshot.ads);
  snapshot.audiences.set('visitor', new Set(advertisers.filter(() => random() < 0.4).map((advertiser) => advertiser.id)));
  return { snapshot, block, random };
}

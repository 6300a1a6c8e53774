import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Candidate, runAuction, smoothedCtr } from '../../../../src/modules/serving/selection/auction.ts';
import type { ImpressionFilters } from '../../../../src/modules/serving/selection/eligibility.ts';
import { weekSchedule } from '../../../../src/modules/serving/selection/schedule.ts';
import { selectTeasers } from '../../../../src/modules/serving/selection/select-teasers.ts';
import { emptySnapshot } from '../../../../src/modules/serving/snapshot/build-snapshot.ts';
import type { AdEntry, BlockEntry, CampaignState } from '../../../../src/modules/serving/snapshot/snapshot.ts';
import { indexAds } from '../../../../src/modules/serving/snapshot/sorted-index.ts';
import { seededRandom } from '../../../helpers/random.ts';

const NOW = Date.UTC(2026, 2, 10, 12, 30); // Tuesday, hour 36 of the week in UTC.

/** Random campaigns (some capped, some scheduled) and ads, a page that showed some of them, a visitor's views. */
function randomCase(seed: number) {
  const random = seededRandom(seed);
  const snapshot = emptySnapshot('2026-03-10');
  const advertiser = { id: 1, balanceMicros: 1_000_000_000, dailyBudgetMicros: 0, spentTodayMicros: 0 };
  const hours = new Map<number, number[]>();
  const campaigns: CampaignState[] = Array.from({ length: 30 }, (_, index) => ({
    id: index + 1,
    advertiser,
    geo: undefined,
    isRetarget: false,
    dailyBudgetMicros: 0,
    dailyClickLimit: 0,
    spentTodayMicros: 0,
    clicksToday: 0,
    siteCoefficients: new Map(),
    blockCoefficients: new Map(),
    deviceCoefficients: [1, 1, 1, 1],
    frequencyCap: random() < 0.3 ? 1 + Math.floor(random() * 3) : 0,
    schedule: undefined,
  }));
  for (const campaign of campaigns) {
    if (random() >= 0.3) continue;
    const scheduled = random() < 0.5 ? [36] : [37, 38];
    hours.set(campaign.id, scheduled);
    campaign.schedule = weekSchedule(scheduled, 'UTC');
  }
  for (const campaign of campaigns) snapshot.campaigns.set(campaign.id, campaign);
  for (let index = 0; index < 300; index += 1) {
    const views = Math.floor(random() * 3000);
    const ad: AdEntry = {
      offerId: index + 1,
      campaign: campaigns[Math.floor(random() * campaigns.length)] as CampaignState,
      bidMicros: 10_000 + Math.floor(random() * 990_000),
      title: '',
      description: '',
      priceText: '',
      image: null,
      wideImage: null,
      url: '',
      urlMobile: '',
      domain: '',
      ctr: smoothedCtr(views, Math.floor(random() * views * 0.05)),
    };
    snapshot.ads.push(ad);
    snapshot.adsById.set(ad.offerId, ad);
  }
  snapshot.selection = indexAds(snapshot.ads);
  const block: BlockEntry = {
    id: 5,
    siteId: 3,
    publisherId: 9,
    title: 'b',
    teaserCount: 1 + Math.floor(random() * 6),
    campaignsUnique: random() < 0.5,
  };
  // The page showed some of the best ads (the interesting ones) and a few others.
  const shownAds = snapshot.ads.filter((_, rank) => (rank < 20 ? random() < 0.4 : random() < 0.02));
  const filters: ImpressionFilters = {
    nowMs: NOW,
    page: { ads: new Set(shownAds.map((ad) => ad.offerId)), campaigns: new Set(shownAds.map((ad) => ad.campaign.id)) },
    campaignsUnique: block.campaignsUnique ?? false,
    viewsToday: new Map(campaigns.map((campaign) => [campaign.id, Math.floor(random() * 4)])),
  };
  return { snapshot, block, filters, hours };
}

/** The reference, written from the rules directly: filter every ad, one per campaign when unique, then the auction. */
function reference({ snapshot, block, filters, hours }: ReturnType<typeof randomCase>) {
  const taken = new Set<number>();
  const candidates: Candidate<AdEntry>[] = [];
  for (const ad of snapshot.ads) {
    const campaign = ad.campaign;
    if (filters.page?.ads.has(ad.offerId)) continue;
    if (hours.has(campaign.id) && !hours.get(campaign.id)?.includes(36)) continue;
    const cap = campaign.frequencyCap ?? 0;
    if (cap > 0 && (filters.viewsToday?.get(campaign.id) ?? 0) >= cap) continue;
    if (block.campaignsUnique) {
      if (filters.page?.campaigns.has(campaign.id) || taken.has(campaign.id)) continue;
      taken.add(campaign.id);
    }
    candidates.push({ ad, bidMicros: ad.bidMicros, coefficient: 1, ctr: ad.ctr });
  }
  return runAuction(candidates, block.teaserCount);
}

describe('teaser selection with page, frequency and schedule filters', () => {
  for (let seed = 1; seed <= 40; seed += 1) {
    it(`equals the reference and repeats nothing the page showed (seed ${seed})`, () => {
      const input = randomCase(seed);
      const { snapshot, block, filters } = input;
      const winners = selectTeasers(snapshot, { block, device: 1, country: '', visitorId: undefined, filters });
      assert.deepEqual(
        winners.map((winner) => [winner.ad.offerId, winner.chargeMicros]),
        reference(input).map((winner) => [winner.ad.offerId, winner.chargeMicros]),
      );
      for (const { ad } of winners) assert.equal(filters.page?.ads.has(ad.offerId), false);
      if (block.campaignsUnique) {
        const campaignIds = winners.map(({ ad }) => ad.campaign.id);
        assert.equal(new Set(campaignIds).size, campaignIds.length, 'one ad per campaign');
      }
    });
  }
});

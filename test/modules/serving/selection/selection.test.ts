import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAuction, smoothedCtr } from '../../../../src/modules/serving/selection/auction.ts';
import type { SkipReason } from '../../../../src/modules/serving/selection/judgement.ts';
import { selectTeasers } from '../../../../src/modules/serving/selection/select-teasers.ts';
import { emptySnapshot } from '../../../../src/modules/serving/snapshot/build-snapshot.ts';
import type { AdEntry, AdvertiserState, BlockEntry, CampaignState } from '../../../../src/modules/serving/snapshot/snapshot.ts';
import { indexAds, sortAds } from '../../../../src/modules/serving/snapshot/sorted-index.ts';
import { seededRandom } from '../../../helpers/random.ts';
import { randomIndexSnapshot } from '../../../helpers/serving-index.ts';

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

const COUNTRIES = ['US', 'DE', 'FR', 'BR', 'IN', 'JP'];

/**
 * Many geo-targeted and retargeting campaigns, some with equal base scores (ties by id), and a
 * visitor in some audiences: what the buckets exist for.
 */
function bucketedSnapshot(seed: number) {
  return randomIndexSnapshot(seed, {
    advertisers: 12,
    campaigns: 80,
    ads: 3000,
    brokeShare: 0.15,
    geoShare: 0.7,
    countryShare: 0.3,
    countries: COUNTRIES,
  });
}

describe('selection buckets (country, retargeting audience)', () => {
  for (let seed = 1; seed <= 30; seed += 1) {
    it(`the bucketed walk gives the exhaustive walk's winners and prices (seed ${seed})`, () => {
      const { snapshot, block, random } = bucketedSnapshot(seed);
      for (const country of ['', ...COUNTRIES, 'ZZ']) {
        for (const visitorId of [undefined, 'visitor', 'stranger']) {
          const device = (1 + Math.floor(random() * 3)) as 1 | 2 | 3;
          // A per-request filter that refuses some of the best ads: the walk must go on past them.
          const refused = new Set(
            snapshot.ads
              .slice(0, 40)
              .filter(() => random() < 0.5)
              .map((ad) => ad.offerId),
          );
          const filter = (ad: AdEntry) => !refused.has(ad.offerId);
          const impression = { block, device, country, visitorId };
          const fast = selectTeasers(snapshot, impression, { filter });
          const exhaustive = selectTeasers(snapshot, impression, { filter, exhaustive: true });
          assert.deepEqual(
            fast.map((winner) => [winner.ad.offerId, winner.chargeMicros]),
            exhaustive.map((winner) => [winner.ad.offerId, winner.chargeMicros]),
            `country '${country}', visitor ${visitorId}`,
          );
          const allowed = snapshot.ads.filter((ad) => !refused.has(ad.offerId));
          const reference = fullAuction({ ...snapshot, ads: allowed }, block, device, country);
          if (visitorId === undefined) {
            assert.deepEqual(
              fast.map((winner) => winner.ad.offerId),
              reference.map((winner) => winner.ad.offerId),
            );
          }
        }
      }
    });
  }

  it('tells why each ad of an explanation was skipped, and scores every other ad', () => {
    const { snapshot, block } = bucketedSnapshot(7);
    const refused = snapshot.ads[0] as AdEntry;
    const capped = snapshot.ads[1] as AdEntry;
    const reasons = new Map<number, SkipReason>();
    const candidates = new Set<number>();
    const winners = selectTeasers(
      snapshot,
      { block, device: 1, country: 'US', visitorId: undefined },
      {
        exhaustive: true,
        filter: (ad) => (ad === refused ? false : ad === capped ? 'frequency' : true),
        onSkip: (ad, reason) => reasons.set(ad.offerId, reason),
        onCandidate: (candidate) => candidates.add(candidate.ad.offerId),
      },
    );
    for (const ad of snapshot.ads) {
      const { campaign } = ad;
      const reason = reasons.get(ad.offerId);
      const expected =
        campaign.advertiser.balanceMicros <= 0
          ? 'balance'
          : campaign.dailyClickLimit > 0 && campaign.clicksToday >= 1
            ? 'daily_limit'
            : campaign.geo !== undefined && !campaign.geo.has('US')
              ? 'geo'
              : campaign.isRetarget
                ? 'audience'
                : ad === refused
                  ? 'filtered'
                  : ad === capped
                    ? 'frequency'
                    : undefined;
      assert.equal(reason, expected, `ad ${ad.offerId}`);
      assert.equal(candidates.has(ad.offerId), expected === undefined, `ad ${ad.offerId} is a candidate or skipped`);
    }
    for (const winner of winners) assert.ok(candidates.has(winner.ad.offerId));
    assert.ok([...reasons.values()].includes('geo'));
    assert.ok(candidates.size > block.teaserCount + 1, 'the exhaustive walk scores past the places that matter');
  });
});

describe('sorting a snapshot in slices', () => {
  for (const size of [0, 1, 4095, 4096, 4097, 20_000]) {
    it(`gives the order of a plain sort (${size} ads, ties included)`, async () => {
      const { snapshot } = bucketedSnapshot(size + 3);
      const ads = Array.from({ length: size }, (_, index) => snapshot.ads[index % snapshot.ads.length] as AdEntry).map(
        (ad, index) => ({ ...ad, offerId: size - index }),
      );
      const expected = [...ads];
      indexAds(expected);
      let pauses = 0;
      await sortAds(ads, async () => {
        pauses += 1;
      });
      assert.deepEqual(
        ads.map((ad) => ad.offerId),
        expected.map((ad) => ad.offerId),
      );
      if (size > 4096) assert.ok(pauses >= Math.floor(size / 4096));
    });
  }
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainImpression } from '../../../../src/modules/serving/explain/explain-impression.ts';
import { type Candidate, priceClick, score } from '../../../../src/modules/serving/selection/auction.ts';
import type { ImpressionFilters } from '../../../../src/modules/serving/selection/eligibility.ts';
import type { Impression, SkipReason } from '../../../../src/modules/serving/selection/judgement.ts';
import { type SelectionOptions, selectTeasers } from '../../../../src/modules/serving/selection/select-teasers.ts';
import type { AdEntry } from '../../../../src/modules/serving/snapshot/snapshot.ts';
import { randomIndexSnapshot } from '../../../helpers/serving-index.ts';

/**
 * explainImpression ranks by counting, over its own pass: over seeded random snapshots (ties of
 * score across campaigns, geo, retargeting, limits, one ad per campaign, a per-request filter) it
 * must give what the plain definition gives: selectTeasers' exhaustive walk, every candidate
 * sorted by score (ties in walk order), each ad's rank, and its price against the ad just below.
 */

const COUNTRIES = ['US', 'DE', 'FR'];

function randomSnapshot(seed: number) {
  return randomIndexSnapshot(seed, {
    advertisers: 8,
    campaigns: 60,
    ads: 1500,
    brokeShare: 0.15,
    geoShare: 0.4,
    countryShare: 0.5,
    countries: COUNTRIES,
    drawCampaignsUnique: true,
  });
}

/** The definition: the exhaustive walk's candidates, all sorted, each ranked and priced. */
function reference(
  snapshot: ReturnType<typeof randomSnapshot>['snapshot'],
  impression: Impression,
  campaignId: number,
  filter: SelectionOptions['filter'],
) {
  const candidates: Candidate<AdEntry>[] = [];
  const skipped = new Map<number, SkipReason>();
  const skipCounts: Partial<Record<SkipReason, number>> = {};
  const winners = selectTeasers(snapshot, impression, {
    exhaustive: true,
    filter,
    onCandidate: (candidate) => candidates.push(candidate),
    onSkip: (ad, reason) => {
      skipped.set(ad.offerId, reason);
      skipCounts[reason] = (skipCounts[reason] ?? 0) + 1;
    },
  });
  // Array.prototype.sort is stable: equal scores keep walk order, the auction's tie rule.
  const ordered = candidates
    .map((candidate) => ({ candidate, score: score(candidate) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score);
  const ranked = ordered.flatMap((entry, index) => {
    const { ad } = entry.candidate;
    const winner = winners[index];
    const wins = winner !== undefined && winner.ad === ad;
    if (!wins && ad.campaign.id !== campaignId) return [];
    return [
      {
        offerId: ad.offerId,
        rank: index + 1,
        wins,
        score: entry.score,
        priceMicros: wins ? winner.chargeMicros : priceClick(entry.candidate, ordered[index + 1]?.score),
      },
    ];
  });
  return {
    eligible: ordered.length,
    topScores: ordered.slice(0, impression.block.teaserCount + 1).map((entry) => entry.score),
    ranked,
    skipped: [...skipped].filter(([offerId]) => snapshot.adsById.get(offerId)?.campaign.id === campaignId),
    skipCounts,
  };
}

describe('explaining an impression', () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    it(`ranks, prices and skips as the exhaustive walk with a full sort (seed ${seed})`, () => {
      const { snapshot, block, random } = randomSnapshot(seed);
      let described = 0;
      for (const country of ['', ...COUNTRIES]) {
        for (const visitorId of [undefined, 'visitor']) {
          const device = (1 + Math.floor(random() * 3)) as 1 | 2 | 3;
          const refused = new Set(
            snapshot.ads
              .slice(0, 60)
              .filter(() => random() < 0.3)
              .map((ad) => ad.offerId),
          );
          const filter = (ad: AdEntry) => (refused.has(ad.offerId) ? (ad.offerId % 2 === 0 ? 'frequency' : false) : true);
          const filters: ImpressionFilters = {
            nowMs: 0,
            page: undefined,
            campaignsUnique: block.campaignsUnique ?? false,
            viewsToday: undefined,
          };
          const impression: Impression = { block, device, country, visitorId, filters };
          for (const campaignId of [1 + Math.floor(random() * 60), 1 + Math.floor(random() * 60)]) {
            const explanation = explainImpression(snapshot, impression, { campaignId, filter });
            const expected = reference(snapshot, impression, campaignId, filter);
            const context = `country '${country}', visitor ${visitorId}, campaign ${campaignId}`;
            assert.equal(explanation.eligible, expected.eligible, context);
            assert.deepEqual(explanation.topScores, expected.topScores, context);
            assert.deepEqual(explanation.skipCounts, expected.skipCounts, context);
            assert.deepEqual(
              explanation.skipped.map((ad) => [ad.offerId, ad.reason]),
              expected.skipped,
              context,
            );
            assert.deepEqual(
              explanation.ranked.map(({ offerId, rank, wins, score, priceMicros }) => ({
                offerId,
                rank,
                wins,
                score,
                priceMicros,
              })),
              expected.ranked,
              context,
            );
            described += explanation.ranked.length;
          }
        }
      }
      assert.ok(described > 0, 'some ads were described');
    });
  }
});

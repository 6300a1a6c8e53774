import { type Candidate, priceClick, score } from './auction.ts';
import {
  type AdEntry,
  type Impression,
  placementCoefficient,
  type SelectionOptions,
  type SkipReason,
  type Snapshot,
  selectTeasers,
} from './serving-index.ts';

/**
 * An explanation of one impression: the same selection serving runs (selectTeasers over the same
 * snapshot), walked exhaustively so that every ad is either ranked or skipped with its reason.
 * The result is plain data: the account API never holds the snapshot's objects.
 */

/** An ad that may serve this impression, with how it scores against the others. */
export interface RankedAd {
  offerId: number;
  campaignId: number;
  advertiserId: number;
  title: string;
  domain: string;
  bidMicros: number;
  /** The site or block coefficient of the ad's campaign for this block (1 when none is set). */
  placementCoefficient: number;
  /** The device coefficient of the campaign for this impression's device (1 when none is set). */
  deviceCoefficient: number;
  /** Bid × placement × device coefficient, in (fractional) micros. */
  effectiveBidMicros: number;
  ctr: number;
  /** Expected value per impression: effective bid × CTR, in micros. */
  score: number;
  /** 1 for the best; ads of equal score keep the snapshot's order, as in the auction. */
  rank: number;
  /** Whether the ad is among the teasers the block shows now (rank ≤ the block's teaser count). */
  wins: boolean;
  /** What a click would cost at this rank: the serving charge for winners, priced the same way for the others. */
  priceMicros: number;
}

/** An ad of the snapshot that may not serve this impression, and why. */
export interface SkippedAd {
  offerId: number;
  campaignId: number;
  advertiserId: number;
  reason: SkipReason;
}

export interface Explanation {
  blockId: number;
  teaserCount: number;
  /** Every ad that may serve, best first. */
  ranked: RankedAd[];
  /** Every other ad of the snapshot. */
  skipped: SkippedAd[];
}

/** Explains one impression over a snapshot; `filter` is the same per-request filter serving would apply. */
export function explainImpression(snapshot: Snapshot, impression: Impression, filter?: SelectionOptions['filter']): Explanation {
  const candidates: Candidate<AdEntry>[] = [];
  const skipped: SkippedAd[] = [];
  const winners = selectTeasers(snapshot, impression, {
    exhaustive: true,
    filter,
    onCandidate: (candidate) => candidates.push(candidate),
    onSkip: (ad, reason) => skipped.push({ ...owner(ad), reason }),
  });
  // The auction's order: best score first, ties in walk order (a stable sort of the walk).
  const scored = candidates.map((candidate) => ({ candidate, score: score(candidate) })).filter((entry) => entry.score > 0);
  scored.sort((a, b) => b.score - a.score);
  const ranked = scored.map(({ candidate, score: value }, index): RankedAd => {
    const { ad } = candidate;
    const winner = winners[index];
    const wins = winner !== undefined && winner.ad === ad;
    return {
      ...owner(ad),
      title: ad.title,
      domain: ad.domain,
      bidMicros: ad.bidMicros,
      placementCoefficient: placementCoefficient(ad.campaign, impression.block),
      deviceCoefficient: ad.campaign.deviceCoefficients[impression.device] ?? 1,
      effectiveBidMicros: candidate.bidMicros * candidate.coefficient,
      ctr: ad.ctr,
      score: value,
      rank: index + 1,
      wins,
      priceMicros: wins ? winner.chargeMicros : priceClick(candidate, scored[index + 1]?.score),
    };
  });
  return { blockId: impression.block.id, teaserCount: impression.block.teaserCount, ranked, skipped };
}

function owner(ad: AdEntry): { offerId: number; campaignId: number; advertiserId: number } {
  return { offerId: ad.offerId, campaignId: ad.campaign.id, advertiserId: ad.campaign.advertiser.id };
}

import { type Candidate, effectiveBid, priceClick, score, type Winner } from './auction.ts';
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
  /** How many ads may serve this impression. */
  eligible: number;
  /** The scores of the first teaserCount + 1 places, best first (the winners and the ad that prices the last). */
  topScores: number[];
  /** The winners, then the other eligible ads of the campaign asked about, best first. */
  ranked: RankedAd[];
  /** The skipped ads of the campaign asked about (none when no campaign was asked about). */
  skipped: SkippedAd[];
  /** How many ads of the snapshot were skipped, by reason. */
  skipCounts: Partial<Record<SkipReason, number>>;
}

export interface ExplainOptions {
  /** Rank and list this campaign's ads too (winners are always listed). */
  campaignId?: number;
  /** The per-request filter serving would apply. */
  filter?: SelectionOptions['filter'];
}

/**
 * Explains one impression over a snapshot. Every ad is walked and scored, but only the winners and
 * the ads of the campaign asked about are described: ranking them counts the candidates above
 * them (O(ads) each), so an explanation of 10,000 ads allocates little and sorts nothing.
 */
export function explainImpression(snapshot: Snapshot, impression: Impression, options: ExplainOptions = {}): Explanation {
  const { campaignId } = options;
  const candidates: Candidate<AdEntry>[] = [];
  const skipped: SkippedAd[] = [];
  const skipCounts: Partial<Record<SkipReason, number>> = {};
  const winners = selectTeasers(snapshot, impression, {
    exhaustive: true,
    filter: options.filter,
    onCandidate: (candidate) => candidates.push(candidate),
    onSkip: (ad, reason) => {
      skipCounts[reason] = (skipCounts[reason] ?? 0) + 1;
      if (ad.campaign.id === campaignId) skipped.push({ ...owner(ad), reason });
    },
  });
  // Scores in walk order; the auction ranks by score, ties in walk order, and never ranks a score ≤ 0.
  const scores = new Float64Array(candidates.length);
  let eligible = 0;
  for (let index = 0; index < candidates.length; index += 1) {
    const value = score(candidates[index] as Candidate<AdEntry>);
    scores[index] = value;
    if (value > 0) eligible += 1;
  }
  const described: number[] = [];
  const winnerAds = new Set(winners.map((winner) => winner.ad));
  for (let index = 0; index < candidates.length; index += 1) {
    const { ad } = candidates[index] as Candidate<AdEntry>;
    if ((scores[index] as number) > 0 && (winnerAds.has(ad) || ad.campaign.id === campaignId)) described.push(index);
  }
  const ranked = described
    .map((index) => describe(candidates, scores, index, impression, winners))
    .sort((a, b) => a.rank - b.rank);
  return {
    blockId: impression.block.id,
    teaserCount: impression.block.teaserCount,
    eligible,
    topScores: topScores(scores, impression.block.teaserCount + 1),
    ranked,
    skipped,
    skipCounts,
  };
}

/** One candidate's rank (1 + those ranked above it), coefficients and price at that rank. */
function describe(
  candidates: readonly Candidate<AdEntry>[],
  scores: Float64Array,
  index: number,
  impression: Impression,
  winners: readonly Winner<AdEntry>[],
): RankedAd {
  const candidate = candidates[index] as Candidate<AdEntry>;
  const own = scores[index] as number;
  let above = 0;
  // The best score ranked below this one: what prices its click (second price).
  let next: number | undefined;
  for (let other = 0; other < scores.length; other += 1) {
    if (other === index) continue;
    const value = scores[other] as number;
    if (!(value > 0)) continue;
    if (value > own || (value === own && other < index)) above += 1;
    else if (next === undefined || value > next) next = value;
  }
  const { ad } = candidate;
  const winner = winners[above];
  const wins = winner !== undefined && winner.ad === ad;
  return {
    ...owner(ad),
    title: ad.title,
    domain: ad.domain,
    bidMicros: ad.bidMicros,
    placementCoefficient: placementCoefficient(ad.campaign, impression.block),
    deviceCoefficient: ad.campaign.deviceCoefficients[impression.device] ?? 1,
    effectiveBidMicros: effectiveBid(candidate),
    ctr: ad.ctr,
    score: own,
    rank: above + 1,
    wins,
    priceMicros: wins ? winner.chargeMicros : priceClick(candidate, next),
  };
}

/** The `count` best scores (above 0), best first. */
function topScores(scores: Float64Array, count: number): number[] {
  const best: number[] = [];
  for (const value of scores) {
    if (!(value > 0)) continue;
    if (best.length === count && value <= (best[count - 1] ?? 0)) continue;
    let position = best.length;
    while (position > 0 && (best[position - 1] ?? 0) < value) position -= 1;
    best.splice(position, 0, value);
    if (best.length > count) best.pop();
  }
  return best;
}

function owner(ad: AdEntry): { offerId: number; campaignId: number; advertiserId: number } {
  return { offerId: ad.offerId, campaignId: ad.campaign.id, advertiserId: ad.campaign.advertiser.id };
}

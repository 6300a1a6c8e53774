import { type Candidate, effectiveBid, priceClick, type Winner } from '../selection/auction.ts';
import type { ImpressionFilters } from '../selection/eligibility.ts';
import { type Impression, judgeAd, placementCoefficient, type SkipReason, startJudgement } from '../selection/judgement.ts';
import { type SelectionOptions, selectTeasers } from '../selection/select-teasers.ts';
import type { AdBucket, AdEntry, Snapshot } from '../snapshot/snapshot.ts';

/**
 * An explanation of one impression: the winners and prices are those of the selection serving
 * runs (selectTeasers over the same snapshot), and every other ad is either scored or skipped with
 * its reason by the judgement selection makes (judgeAd), in the order of selectTeasers' exhaustive
 * walk. The result is plain data: the account API never holds the snapshot's objects.
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

/** A hypothetical impression to explain. */
export interface ExplainQuery {
  blockId: number;
  device: Impression['device'];
  /** ISO country code, upper case; '' when unknown. */
  country: string;
  /** Operating system and browser; absent: unknown. */
  agent?: Impression['agent'];
  visitorId: string | undefined;
  /** Describe this campaign's ads too, not only the winners. */
  campaignId?: number;
}

/**
 * Explains a hypothetical impression of a block at `nowMs`. The campaigns' hours and the block's
 * one-ad-per-campaign rule apply as they would now; a page view and a visitor's frequency counts
 * do not (an explanation has neither). Undefined when the block cannot serve (unknown, or its
 * site is not active).
 */
export function explainQuery(snapshot: Snapshot, query: ExplainQuery, nowMs: number): Explanation | undefined {
  const block = snapshot.blocks.get(query.blockId);
  if (block === undefined) return undefined;
  const filters: ImpressionFilters = {
    nowMs,
    page: undefined,
    campaignsUnique: block.campaignsUnique ?? false,
    viewsToday: undefined,
  };
  return explainImpression(
    snapshot,
    { block, device: query.device, country: query.country, agent: query.agent, visitorId: query.visitorId, filters },
    { campaignId: query.campaignId },
  );
}

/**
 * Explains one impression over a snapshot. The winners come from serving's own (bucketed)
 * selection; one pass over every ad, in the exhaustive walk's order and judged by judgeAd, counts the skipped ads
 * by reason and keeps the candidates' scores in an array. Only the winners and the ads of the
 * campaign asked about are described, and one more pass ranks them all at once (a binary search
 * among them per candidate), so an explanation of 10,000 ads allocates little and sorts nothing
 * of size n.
 */
export function explainImpression(snapshot: Snapshot, impression: Impression, options: ExplainOptions = {}): Explanation {
  const { campaignId, filter } = options;
  const winners = selectTeasers(snapshot, impression, { filter });
  const walk = walkEveryAd(snapshot, impression, options, winners);
  const ranked = rankDescribed(walk, impression, winners);
  return {
    blockId: impression.block.id,
    teaserCount: impression.block.teaserCount,
    eligible: walk.count,
    topScores: walk.topScores,
    ranked,
    skipped: campaignId === undefined ? [] : walk.skipped,
    skipCounts: walk.skipCounts,
  };
}

/** A candidate to describe: a winner or an ad of the campaign asked about, at its walk position. */
interface Described {
  candidate: Candidate<AdEntry>;
  score: number;
  position: number;
}

interface Walk {
  /** The scores above 0 (the candidates the auction ranks) in walk order: the first `count` entries. */
  scores: Float64Array;
  count: number;
  /** The teaser count + 1 best scores, best first. */
  topScores: number[];
  described: Described[];
  skipped: SkippedAd[];
  skipCounts: Partial<Record<SkipReason, number>>;
}

/**
 * Room for one explanation's scores per selection index, reused: an explanation runs start to end
 * without yielding. Dropped with the snapshot (a rebuild makes a new index).
 */
const scoresByIndex = new WeakMap<AdBucket, Float64Array>();

function scoresOf(snapshot: Snapshot): Float64Array {
  const bucket = snapshot.selection.all;
  let scores = scoresByIndex.get(bucket);
  if (scores === undefined) {
    scores = new Float64Array(bucket.ads.length);
    scoresByIndex.set(bucket, scores);
  }
  return scores;
}

/**
 * Every ad of the snapshot in `snapshot.ads` order (the exhaustive walk's), judged as selection
 * judges it (judgeAd): each skipped ad is counted by reason, each candidate's score kept.
 */
function walkEveryAd(
  snapshot: Snapshot,
  impression: Impression,
  options: ExplainOptions,
  winners: readonly Winner<AdEntry>[],
): Walk {
  const { campaignId, filter } = options;
  const { ads } = snapshot.selection.all;
  const scores = scoresOf(snapshot);
  const audience = impression.visitorId === undefined ? undefined : snapshot.audiences.get(impression.visitorId);
  const judgement = startJudgement(impression, audience, filter);
  const lowestWinner = winners.length === 0 ? Number.POSITIVE_INFINITY : (winners[winners.length - 1] as Winner<AdEntry>).score;
  const places = impression.block.teaserCount + 1;
  const topScores: number[] = [];
  const described: Described[] = [];
  const skipped: SkippedAd[] = [];
  const skipCounts: Partial<Record<SkipReason, number>> = {};
  let count = 0;
  for (let index = 0; index < ads.length; index += 1) {
    const ad = ads[index] as AdEntry;
    const factor = judgeAd(judgement, ad);
    const asked = ad.campaign.id === campaignId;
    if (typeof factor !== 'number') {
      skipCounts[factor] = (skipCounts[factor] ?? 0) + 1;
      if (asked) skipped.push({ ...owner(ad), reason: factor });
      continue;
    }
    // The auction's score(): (bid × coefficient) × CTR, multiplied in that order so that the float
    // is the same one (explain-impression.test.ts compares them), without a candidate object per ad.
    const value = ad.bidMicros * factor * ad.ctr;
    // The auction never ranks a score ≤ 0.
    if (!(value > 0)) continue;
    const position = count;
    scores[position] = value;
    count = position + 1;
    if (topScores.length < places || value > (topScores[places - 1] as number)) insertScore(topScores, value, places);
    if (!asked && !(value >= lowestWinner)) continue;
    if (asked || winners.some((winner) => winner.ad === ad)) {
      described.push({
        candidate: { ad, bidMicros: ad.bidMicros, coefficient: factor, ctr: ad.ctr },
        score: value,
        position,
      });
    }
  }
  return { scores, count, topScores, described, skipped, skipCounts };
}

/** Puts a score into a best-first list of at most `places`. */
function insertScore(best: number[], value: number, places: number): void {
  let index = best.length;
  while (index > 0 && (best[index - 1] as number) < value) index -= 1;
  best.splice(index, 0, value);
  if (best.length > places) best.pop();
}

/** Whether `a` ranks above a candidate of score `value` at walk position `position` (ties: walk order, as in the auction). */
const ranksAbove = (a: Described, value: number, position: number) =>
  a.score > value || (a.score === value && a.position < position);

/**
 * Ranks the described candidates among every candidate in one pass: for each candidate, how many
 * described ones rank above it (binary search). A described ad's rank is the number of candidates
 * that have no more described ads above them than it has, and its price uses the best score of
 * the candidates below it.
 */
function rankDescribed(walk: Walk, impression: Impression, winners: readonly Winner<AdEntry>[]): RankedAd[] {
  const described = walk.described.sort((a, b) => (ranksAbove(a, b.score, b.position) ? -1 : 1));
  const size = described.length;
  if (size === 0) return [];
  // Per number of described ads above: how many candidates, and the best of their scores.
  const counts = new Int32Array(size + 1);
  const best = new Float64Array(size + 1);
  const lowest = (described[size - 1] as Described).score;
  for (let position = 0; position < walk.count; position += 1) {
    const value = walk.scores[position] as number;
    let above = size;
    if (value >= lowest) {
      let low = 0;
      while (low < above) {
        const middle = (low + above) >>> 1;
        if (ranksAbove(described[middle] as Described, value, position)) low = middle + 1;
        else above = middle;
      }
    }
    counts[above] = (counts[above] as number) + 1;
    if (value > (best[above] as number)) best[above] = value;
  }
  const ranked: RankedAd[] = new Array(size);
  let rank = 0;
  for (let index = 0; index < size; index += 1) {
    rank += counts[index] as number;
    ranked[index] = describe(described[index] as Described, rank, impression, winners);
  }
  let next = 0;
  for (let index = size - 1; index >= 0; index -= 1) {
    next = Math.max(next, best[index + 1] as number);
    const ad = ranked[index] as RankedAd;
    if (!ad.wins)
      ad.priceMicros = priceClick(
        (described[index] as Described).candidate,
        next > 0 ? next : undefined,
        impression.block.floorMicros ?? 0,
      );
  }
  return ranked;
}

/** One described candidate at its rank: coefficients, and for a winner the serving charge. */
function describe(described: Described, rank: number, impression: Impression, winners: readonly Winner<AdEntry>[]): RankedAd {
  const { candidate } = described;
  const { ad } = candidate;
  const winner = winners[rank - 1];
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
    score: described.score,
    rank,
    wins,
    // Priced against the candidates below once every rank is known (rankDescribed).
    priceMicros: wins ? winner.chargeMicros : 0,
  };
}

function owner(ad: AdEntry): { offerId: number; campaignId: number; advertiserId: number } {
  return { offerId: ad.offerId, campaignId: ad.campaign.id, advertiserId: ad.campaign.advertiser.id };
}

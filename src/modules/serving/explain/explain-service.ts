import type { Db } from '../../../db/database.ts';
import { DomainError, invalidField, notFound } from '../../../errors.ts';
import { microsToAmount } from '../../../money.ts';
import { MODERATION } from '../../moderation/index.ts';
import { SKIP_REASONS } from '../selection/judgement.ts';
import type { ExplainQuery, ServingEngine } from '../serving-engine.ts';
import type { Explanation, RankedAd } from './explain-impression.ts';
import { type ImpressionQuery, readImpression } from './explain-query.ts';
import { type CampaignAdsRow, findOwnCampaignAds, publisherOwnsBlock } from './explain-repository.ts';

/**
 * Why a campaign's ads would or would not show in a block, and what fills a block: the account
 * API's side of an explanation. What happens in serving comes from ServingEngine.explain (the
 * selection serving runs, over its snapshot); why an ad is not in the snapshot at all comes from
 * the campaign and ad rows.
 */

/** Reasons an ad is not in serving at all, read from the database. */
export const STORED_REASONS = ['campaign_paused', 'campaign_not_approved', 'ad_paused', 'moderation', 'not_indexed'] as const;

/** Reasons an ad in serving does not compete for this impression: selection's own (judgeAd). */
export const SERVING_REASONS = SKIP_REASONS;

export type ExplainReason = (typeof STORED_REASONS)[number] | (typeof SERVING_REASONS)[number];

export interface ExplainedAd {
  id: number;
  title: string;
  status: 'eligible' | 'filtered';
  reasons: ExplainReason[];
  bid: number;
  placementCoefficient: number | null;
  deviceCoefficient: number | null;
  effectiveBid: number | null;
  ctr: number | null;
  score: number | null;
  rank: number | null;
  wins: boolean;
  price: number | null;
  priceToBeat: number | null;
}

/** The serving engine's explanation of the query's impression; `inactive` when the block cannot serve. */
function explainBlock(
  serving: ServingEngine,
  blockId: number,
  query: ImpressionQuery & { campaignId?: number },
  inactive: () => DomainError,
) {
  const impression = readImpression(query);
  const request: ExplainQuery = {
    blockId,
    campaignId: query.campaignId,
    device: impression.deviceId,
    country: impression.country,
    agent: impression.agent,
    visitorId: impression.visitorId,
  };
  const explanation = serving.explain(request);
  if (explanation === undefined) throw inactive();
  return { impression, explanation };
}

/** An ad's expected value per thousand impressions, in currency units (score is per impression, in micros). */
const perMille = (score: number) => Math.round(score * 1000) / 1_000_000;

/** The reserve a click never costs less than: the second price's step, in micros. */
const PRICE_STEP_MICROS = 10_000;

/**
 * The effective bid at which an eligible ad that is not shown would be, in micros: the last shown
 * place's score over the ad's CTR, plus the step of the second price. Null for an ad shown now,
 * and when fewer ads compete than the block has places (every eligible ad is shown).
 */
function priceToBeatMicros(ranked: RankedAd, lastShownScore: number | undefined): number | null {
  if (ranked.wins || lastShownScore === undefined || ranked.ctr <= 0) return null;
  return Math.floor(lastShownScore / ranked.ctr) + PRICE_STEP_MICROS;
}

/**
 * Each of the advertiser's campaign's ads, eligible (with its rank, price and the price to beat)
 * or filtered (with why). Nothing of other advertisers' ads is told: not their scores, bids or
 * number; an ad's rank and the price to beat are all an advertiser learns of the competition.
 */
export async function explainCampaign(
  db: Db,
  serving: ServingEngine,
  advertiserId: number,
  campaignId: number,
  query: ImpressionQuery & { block: number },
) {
  const found = await findOwnCampaignAds(db, advertiserId, campaignId);
  const campaign = found[0];
  if (campaign === undefined) throw notFound('Campaign');
  const { impression, explanation } = explainBlock(serving, query.block, { ...query, campaignId }, () =>
    invalidField('block', 'Not a block of an active site: nothing serves there.'),
  );
  const ranked = new Map(explanation.ranked.filter((ad) => ad.campaignId === campaignId).map((ad) => [ad.offerId, ad]));
  const lastShown = explanation.topScores[explanation.teaserCount - 1];
  const skipped = new Map(explanation.skipped.filter((ad) => ad.campaignId === campaignId).map((ad) => [ad.offerId, ad.reason]));
  const campaignReasons: ExplainReason[] = [];
  if (!campaign.campaign_active || campaign.campaign_archived) campaignReasons.push('campaign_paused');
  if (campaign.campaign_moderation_status !== MODERATION.approved) campaignReasons.push('campaign_not_approved');
  const ads = found.flatMap(adOf).map((row): ExplainedAd => {
    const stored = [...campaignReasons];
    if (!row.active) stored.push('ad_paused');
    if (row.moderation_status !== MODERATION.approved) stored.push('moderation');
    const rank = ranked.get(row.id);
    const skip = skipped.get(row.id);
    // A stored reason wins over the snapshot: a pause takes effect in serving within seconds.
    const reasons: ExplainReason[] =
      stored.length > 0 ? stored : skip !== undefined ? [skip] : rank === undefined ? ['not_indexed'] : [];
    return rankedAd(row, reasons.length === 0 ? rank : undefined, reasons, lastShown);
  });
  return {
    campaign: campaignId,
    block: explanation.blockId,
    device: impression.device,
    country: impression.country,
    teaserCount: explanation.teaserCount,
    ads,
  };
}

/** The ad's columns of a row (none on the row of a campaign without ads). */
function adOf(row: CampaignAdsRow) {
  const { id, title, bid_micros: bidMicros, active, moderation_status: moderationStatus } = row;
  if (id === null || title === null || bidMicros === null || active === null || moderationStatus === null) return [];
  return [{ id, title, bid_micros: bidMicros, active, moderation_status: moderationStatus }];
}

function rankedAd(
  row: { id: number; title: string; bid_micros: number },
  ranked: RankedAd | undefined,
  reasons: ExplainReason[],
  lastShownScore: number | undefined,
): ExplainedAd {
  const toBeat = ranked === undefined ? null : priceToBeatMicros(ranked, lastShownScore);
  return {
    id: row.id,
    title: row.title,
    status: ranked === undefined ? 'filtered' : 'eligible',
    reasons,
    bid: microsToAmount(row.bid_micros),
    placementCoefficient: ranked?.placementCoefficient ?? null,
    deviceCoefficient: ranked?.deviceCoefficient ?? null,
    effectiveBid: ranked === undefined ? null : microsToAmount(Math.floor(ranked.effectiveBidMicros)),
    ctr: ranked?.ctr ?? null,
    score: ranked === undefined ? null : perMille(ranked.score),
    rank: ranked?.rank ?? null,
    wins: ranked?.wins ?? false,
    price: ranked === undefined ? null : microsToAmount(ranked.priceMicros),
    priceToBeat: toBeat === null ? null : microsToAmount(toBeat),
  };
}

/** What fills one of the publisher's blocks now, and how many ads do not compete, by why. */
export async function explainOwnBlock(
  db: Db,
  serving: ServingEngine,
  publisherId: number,
  blockId: number,
  query: ImpressionQuery,
) {
  // A block in the serving index says whose it is (a block never changes publisher): the row is
  // read only when it is not there (404 or an inactive site's block, 409) or is another's (404).
  if (serving.block(blockId)?.publisherId !== publisherId && !(await publisherOwnsBlock(db, publisherId, blockId))) {
    throw notFound('Block');
  }
  const { impression, explanation } = explainBlock(
    serving,
    blockId,
    query,
    () => new DomainError('site_not_active', "The block's site is not active (in moderation or banned): nothing serves there."),
  );
  return {
    block: explanation.blockId,
    device: impression.device,
    country: impression.country,
    teaserCount: explanation.teaserCount,
    eligible: explanation.eligible,
    teasers: explanation.ranked
      .filter((ad) => ad.wins)
      .map((ad) => ({ rank: ad.rank, id: ad.offerId, title: ad.title, domain: ad.domain, score: perMille(ad.score) })),
    filtered: countReasons(explanation),
  };
}

function countReasons(explanation: Explanation): { reason: ExplainReason; count: number }[] {
  return SERVING_REASONS.flatMap((reason) => {
    const count = explanation.skipCounts[reason];
    return count === undefined ? [] : [{ reason, count }];
  });
}

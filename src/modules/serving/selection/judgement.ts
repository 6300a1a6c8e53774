import type { AdEntry, BlockEntry, CampaignState } from '../snapshot/snapshot.ts';
import { type AgentTraits, matchesTargets, UNKNOWN_AGENT } from './agent-targets.ts';
import { adExclusion, campaignExclusion, FILTER_REASONS, type FilterReason, type ImpressionFilters } from './eligibility.ts';

export interface Impression {
  block: BlockEntry;
  device: 1 | 2 | 3;
  country: string;
  /** The visitor's operating system and browser (absent: unknown, which no OS or browser target takes). */
  agent?: AgentTraits;
  visitorId: string | undefined;
  /** The network (AS number) the visitor is in; absent or 0 when unknown. Carried in the click link (network_mismatch). */
  asn?: number;
  /** Page, frequency and schedule filters (eligibility.ts); absent: the auction alone. */
  filters?: ImpressionFilters;
}

/** Whether a campaign may still buy clicks today: money, daily budgets, daily click limit. */
export function campaignCanServe(campaign: CampaignState): boolean {
  return campaignLimit(campaign) === undefined;
}

/**
 * Which limit stops a campaign buying clicks today, if any: the advertiser's balance, the
 * campaign's lifetime budget, a daily budget (the campaign's or the advertiser's), or the
 * campaign's daily click limit.
 */
export function campaignLimit(campaign: CampaignState): LimitReason | undefined {
  const advertiser = campaign.advertiser;
  if (advertiser.balanceMicros <= 0) return 'balance';
  const total = campaign.totalBudgetMicros ?? 0;
  if (total > 0 && (campaign.spentBeforeTodayMicros ?? 0) + campaign.spentTodayMicros >= total) return 'total_budget';
  if (advertiser.dailyBudgetMicros > 0 && advertiser.spentTodayMicros >= advertiser.dailyBudgetMicros) return 'budget';
  if (campaign.dailyBudgetMicros > 0 && campaign.spentTodayMicros >= campaign.dailyBudgetMicros) return 'budget';
  if (campaign.dailyClickLimit > 0 && campaign.clicksToday >= campaign.dailyClickLimit) return 'daily_limit';
  return undefined;
}

/** The site or block coefficient of a campaign for a block (the block's own wins; 1 when none is set). */
export function placementCoefficient(campaign: CampaignState, block: BlockEntry): number {
  return campaign.blockCoefficients.get(`${block.siteId}:${block.id}`) ?? campaign.siteCoefficients.get(block.siteId) ?? 1;
}

/**
 * Why a campaign's own targeting refuses this placement and visitor, if it does: another country,
 * device type, operating system or browser; a site its lists exclude; a category the block's site refuses.
 */
function targetingExclusion(campaign: CampaignState, impression: Impression): SkipReason | undefined {
  if (campaign.geo !== undefined && !campaign.geo.has(impression.country)) return 'geo';
  if (campaign.deviceTargets !== undefined && !campaign.deviceTargets.has(impression.device)) return 'device';
  const agent = impression.agent ?? UNKNOWN_AGENT;
  if (campaign.osTargets !== undefined && !matchesTargets(campaign.osTargets, agent.os, agent.osMajor)) return 'os';
  if (campaign.browserTargets !== undefined && !matchesTargets(campaign.browserTargets, agent.browser, agent.browserMajor))
    return 'browser';
  const { siteId, refusedCategories } = impression.block;
  if (campaign.siteAllow !== undefined && !campaign.siteAllow.has(siteId)) return 'site_list';
  if (campaign.siteBlock?.has(siteId)) return 'site_list';
  if (refusedCategories !== undefined && campaign.categoryId != null && refusedCategories.has(campaign.categoryId))
    return 'category';
  return undefined;
}

/**
 * The site/block coefficient times the device coefficient for one campaign and impression, or why
 * the campaign may not show here (limits reached, a request filter, its targeting, not in the audience).
 */
export function campaignFactor(
  campaign: CampaignState,
  impression: Impression,
  audience: Set<number> | undefined,
): number | SkipReason {
  const limit = campaignLimit(campaign);
  if (limit !== undefined) return limit;
  if (impression.filters !== undefined) {
    const excluded = campaignExclusion(campaign, impression.filters);
    if (excluded !== undefined) return excluded;
  }
  const untargeted = targetingExclusion(campaign, impression);
  if (untargeted !== undefined) return untargeted;
  if (campaign.isRetarget && !audience?.has(campaign.advertiser.id)) return 'audience';
  return placementCoefficient(campaign, impression.block) * (campaign.deviceCoefficients[impression.device] ?? 1);
}

/** A spent limit: the balance, the lifetime budget, a daily budget (campaign or advertiser), the daily click limit. */
export const LIMIT_REASONS = ['balance', 'total_budget', 'budget', 'daily_limit'] as const;
export type LimitReason = (typeof LIMIT_REASONS)[number];

/**
 * Why a per-request filter refused an ad (one ad per page view, frequency caps, schedules); a
 * filter that answers only `false` gives `filtered`.
 */
export type RequestFilterReason = FilterReason | 'filtered';

/**
 * Why an ad visited by the selection did not become a candidate, in the order an explanation
 * counts them: a spent limit; `geo`, `device`, `os`, `browser`, the campaign targets other
 * countries, device types, systems or browsers; `site_list`, its allow or block list excludes the site; `category`, the
 * site refuses its category; `audience`, a retargeting campaign and the visitor is not in its
 * advertiser's audience; a per-request filter; `floor`, its bid × coefficients is under the
 * block's minimum CPC.
 */
export const SKIP_REASONS = [
  ...LIMIT_REASONS,
  'geo',
  'device',
  'os',
  'browser',
  'site_list',
  'category',
  'audience',
  ...FILTER_REASONS,
  'floor',
  'filtered',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** A caller's per-request filter of single ads: `true` lets the ad compete, anything else says why not. */
export type AdFilter = (ad: AdEntry) => boolean | RequestFilterReason;

/**
 * The judgement of one impression, ad after ad: what it needs of the impression, and what it
 * keeps between ads (each campaign's verdict, reached once; the campaigns that took a place on a
 * block with unique campaigns). Made once per selection or explanation, never per ad.
 */
export interface Judgement {
  impression: Impression;
  audience: Set<number> | undefined;
  filter: AdFilter | undefined;
  verdicts: Map<CampaignState, number | SkipReason>;
  campaignsTaken: Set<CampaignState> | undefined;
}

/** Starts judging the ads of one impression; `audience` holds the advertisers whose audience the visitor is in. */
export function startJudgement(impression: Impression, audience: Set<number> | undefined, filter?: AdFilter): Judgement {
  return {
    impression,
    audience,
    filter,
    verdicts: new Map(),
    // A block with unique campaigns takes each campaign's first ad: the best, as ads come best first.
    campaignsTaken: impression.block.campaignsUnique ? new Set() : undefined,
  };
}

/**
 * Whether an ad competes for the impression: its campaign's factor (placement × device
 * coefficient), or why it does not. The checks, in this order: the page showed the ad; the
 * campaign's limits, request filters, targeting and audience (campaignFactor, once per campaign);
 * the ad's category and the block's floor; the caller's filter; one ad per campaign on a block
 * that asks for it. Ads must be judged in walk
 * order (best first): an ad that competes takes its campaign's place. The one judgement serving
 * (selectTeasers) and explanations (explainImpression) both make.
 */
export function judgeAd(judgement: Judgement, ad: AdEntry): number | SkipReason {
  const { filters } = judgement.impression;
  if (filters !== undefined) {
    const excluded = adExclusion(ad.offerId, filters);
    if (excluded !== undefined) return excluded;
  }
  let factor = judgement.verdicts.get(ad.campaign);
  if (factor === undefined) {
    factor = campaignFactor(ad.campaign, judgement.impression, judgement.audience);
    judgement.verdicts.set(ad.campaign, factor);
  }
  if (typeof factor !== 'number') return factor;
  const { block } = judgement.impression;
  if (block.refusedCategories !== undefined && ad.subCategoryId != null && block.refusedCategories.has(ad.subCategoryId))
    return 'category';
  if (block.floorMicros !== undefined && ad.bidMicros * factor < block.floorMicros) return 'floor';
  const { filter, campaignsTaken } = judgement;
  if (filter !== undefined) {
    const verdict = filter(ad);
    if (verdict !== true) return verdict === false ? 'filtered' : verdict;
  }
  if (campaignsTaken !== undefined) {
    if (campaignsTaken.has(ad.campaign)) return 'page_repeat';
    campaignsTaken.add(ad.campaign);
  }
  return factor;
}

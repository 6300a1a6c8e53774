import { aheadOfPace } from './pacing.ts';
import type { PageShown } from './page-views.ts';
import { servesAt, type WeekSchedule } from './schedule.ts';

/**
 * The filters of a page view and a visitor, beside the campaign's own limits: each answers why an
 * ad may not show here with a stable reason code, which the explain endpoint reports as well.
 */
export const FILTER_REASONS = ['page_repeat', 'frequency', 'schedule', 'flight', 'pacing'] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

/** What a campaign brings to these filters (absent: no cap, serves at every hour). */
export interface CampaignFilters {
  id: number;
  /** Viewable impressions per visitor per day; 0 or absent means no cap. */
  frequencyCap?: number;
  schedule?: WeekSchedule;
  /** Flight dates (epoch ms): serves from the start, inclusive, until the end, exclusive. */
  startsAtMs?: number;
  endsAtMs?: number;
  /** Even pacing, with what it spent today. */
  pacing?: { dailyTargetMicros: number; timeZone: string };
  spentTodayMicros?: number;
}

/** What the request brings: the instant, what the page showed, what the visitor saw today. */
export interface ImpressionFilters {
  nowMs: number;
  /** Ads and campaigns other blocks of this page view showed (none without a page id). */
  page: PageShown | undefined;
  /** Whether the block refuses campaigns the page showed already. */
  campaignsUnique: boolean;
  /** The visitor's views today per campaign id (undefined: unknown visitor, no cap applies). */
  viewsToday: ReadonlyMap<number, number> | undefined;
}

/** Why a campaign may not show for this impression, or undefined when it may. */
export function campaignExclusion(campaign: CampaignFilters, filters: ImpressionFilters): FilterReason | undefined {
  if (campaign.startsAtMs !== undefined && filters.nowMs < campaign.startsAtMs) return 'flight';
  if (campaign.endsAtMs !== undefined && filters.nowMs >= campaign.endsAtMs) return 'flight';
  if (campaign.schedule !== undefined && !servesAt(campaign.schedule, filters.nowMs)) return 'schedule';
  const cap = campaign.frequencyCap ?? 0;
  if (cap > 0 && (filters.viewsToday?.get(campaign.id) ?? 0) >= cap) return 'frequency';
  if (filters.campaignsUnique && filters.page?.campaigns.has(campaign.id)) return 'page_repeat';
  if (campaign.pacing !== undefined && aheadOfPace(campaign.pacing, campaign.spentTodayMicros ?? 0, filters.nowMs))
    return 'pacing';
  return undefined;
}

/** Why an ad may not show for this impression (its campaign aside), or undefined when it may. */
export function adExclusion(offerId: number, filters: ImpressionFilters): FilterReason | undefined {
  return filters.page?.ads.has(offerId) ? 'page_repeat' : undefined;
}

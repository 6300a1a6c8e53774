import { type operations, pages } from '@nativa/sdk';
import { useQuery } from '@tanstack/react-query';
import { api, data, noRetryOnRefusal } from '../../api.ts';
import type { Period } from '../../components/period-picker.tsx';
import { daysBetween } from '../../format.ts';
import { publisherKeys } from './publisher-keys.ts';

/** A site as the publisher's API answers it. */
export type Site = operations['getSite']['responses'][200]['content']['application/json'];
export type SiteStatus = Site['status'];

/**
 * What each status means for the publisher (`publisher` catalogue keys): shown beside the site, so
 * nobody waits without knowing why; `summary` is the meaning's first sentence, for lists.
 */
export const SITE_STATUS = {
  moderation: {
    label: 'siteStatus.moderation',
    meaning: 'siteStatus.moderation.meaning',
    summary: 'siteStatus.moderation.summary',
  },
  active: { label: 'siteStatus.active', meaning: 'siteStatus.active.meaning', summary: 'siteStatus.active.summary' },
  banned: { label: 'siteStatus.banned', meaning: 'siteStatus.banned.meaning', summary: 'siteStatus.banned.summary' },
  unconfirmed: {
    label: 'siteStatus.unconfirmed',
    meaning: 'siteStatus.unconfirmed.meaning',
    summary: 'siteStatus.unconfirmed.summary',
  },
} as const satisfies Record<SiteStatus, { label: string; meaning: string; summary: string }>;

export interface DailyIncome {
  days: string[];
  /** Teasers placed in the publisher's blocks. */
  served: number[];
  /** The viewable ones among them: at least half in view for a second. */
  views: number[];
  clicks: number[];
  income: number[];
}

export interface IncomeTotals {
  served: number;
  views: number;
  clicks: number;
  income: number;
  ctr: number;
  cpm: number;
}

/** Income per thousand of `count` (served teasers or viewable views): the RPM; 0 for none. */
export function perThousand(income: number, count: number): number {
  return count === 0 ? 0 : (income / count) * 1000;
}

export interface StatisticsFilter {
  siteIds?: string;
  blockIds?: string;
}

/**
 * Daily publisher statistics with every day of the period present (the API leaves out days
 * without traffic, a chart must not), and the period's totals summed from the same rows.
 */
export function usePublisherStatistics(period: Period, filter: StatisticsFilter = {}) {
  return useQuery({
    queryKey: publisherKeys.statistics(period, filter.siteIds ?? '', filter.blockIds ?? ''),
    queryFn: async (): Promise<{ daily: DailyIncome; totals: IncomeTotals }> => {
      const rows = await data(
        api.GET('/api/webmaster/statistic', {
          params: {
            query: {
              dateFrom: period.from,
              dateTo: period.to,
              ...(filter.siteIds ? { siteIds: filter.siteIds } : {}),
              ...(filter.blockIds ? { blockIds: filter.blockIds } : {}),
            },
          },
        }),
      );
      const byDay = new Map(rows.map((row) => [row.date, row]));
      const days = daysBetween(period.from, period.to);
      const pick = (field: 'served' | 'views' | 'clicks' | 'income') => days.map((day) => byDay.get(day)?.[field] ?? 0);
      const daily = { days, served: pick('served'), views: pick('views'), clicks: pick('clicks'), income: pick('income') };
      const served = sum(daily.served);
      const views = sum(daily.views);
      const clicks = sum(daily.clicks);
      // Summed in micro-units so that 0.1 + 0.2 stays 0.3 (income has at most four fraction digits).
      const income = daily.income.reduce((total, value) => total + Math.round(value * 1e6), 0) / 1e6;
      return {
        daily,
        totals: {
          served,
          views,
          clicks,
          income,
          ctr: views === 0 ? 0 : (clicks / views) * 100,
          cpm: perThousand(income, views),
        },
      };
    },
    retry: noRetryOnRefusal,
  });
}

/**
 * The publisher's sites with their figures for the period (all pages of the list), searched and
 * ordered by the server when `order` (`q`, `sort`) is given.
 */
export function useSites(period?: Period, options: { blocks?: boolean; order?: { q?: string; sort?: string } } = {}) {
  return useQuery({
    queryKey: publisherKeys.sites.list(period, options.blocks ?? false, options.order?.q ?? '', options.order?.sort ?? ''),
    queryFn: async () => {
      const sites = [];
      for await (const site of pages((page) =>
        api.GET('/api/webmaster/sites', {
          params: {
            query: {
              page,
              'per-page': 100,
              ...(period ? { dateFrom: period.from, dateTo: period.to } : {}),
              ...(options.blocks ? { expand: 'blocks' } : {}),
              ...options.order,
            },
          },
        }),
      ))
        sites.push(site);
      return sites;
    },
  });
}

export type Block = NonNullable<Site['blocks']>[number];

/** Site categories: roots with their children under them, for one grouped select. */
export function useSiteCategories() {
  return useQuery({
    queryKey: publisherKeys.siteCategories(),
    queryFn: async () => {
      const all = [];
      for await (const category of pages((page) =>
        api.GET('/api/webmaster/categories', { params: { query: { page, 'per-page': 100 } } }),
      ))
        all.push(category);
      return all;
    },
    staleTime: 10 * 60_000,
  });
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

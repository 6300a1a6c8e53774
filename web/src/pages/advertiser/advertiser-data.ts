import type { operations } from '@nativa/sdk';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api.ts';
import { type Series, useResolvedColors } from '../../components/chart.tsx';
import type { Period } from '../../components/period-picker.tsx';
import { count, daysBetween, money } from '../../format.ts';
import type advertiser from '../../i18n/locales/en/advertiser.json';
import { advertiserKeys } from './advertiser-keys.ts';

/** A key of the advertiser catalogue, for labels kept in maps and translated where they render. */
export type AdvertiserKey = keyof typeof advertiser;

export interface DailyFigures {
  days: string[];
  views: number[];
  clicks: number[];
  money: number[];
  orders: number[];
}

/** A row of the advertiser's statistics, as the API answers it. */
type StatisticsRow = operations['getAdvertiserStatistics']['responses'][200]['content']['application/json'][number];

/** A period's figures: the statistics row without its grouping fields. */
export type Totals = Pick<StatisticsRow, 'views' | 'clicks' | 'money' | 'orders' | 'ctr' | 'cpc' | 'cr' | 'cpo'>;

type Campaign = operations['getCampaign']['responses'][200]['content']['application/json'];
type Ad = NonNullable<Campaign['offers']>[number];

/** The names of a campaign's moderation statuses (`status` of the API), as catalogue keys. */
export const CAMPAIGN_STATUS: Record<Campaign['status'], AdvertiserKey> = {
  0: 'status.inModeration',
  1: 'status.approved',
  2: 'status.rejected',
  3: 'status.archived',
};

/** The names of an ad's moderation statuses, as catalogue keys. */
export const AD_STATUS: Record<Ad['status'], AdvertiserKey> = {
  0: 'adStatus.inModeration',
  1: 'adStatus.approved',
  2: 'adStatus.rejected',
};

/** A status by its name in `names` (CAMPAIGN_STATUS, AD_STATUS), or its number if the API sends a new one. */
export function statusName(t: (key: AdvertiserKey) => string, names: Record<number, AdvertiserKey>, status: number): string {
  const key = names[status];
  return key ? t(key) : String(status);
}

/** A map of catalogue keys (a list's orders, a select's options) as names in the reader's language. */
export function translateNames<S extends string>(
  names: Record<S, AdvertiserKey>,
  t: (key: AdvertiserKey) => string,
): Record<S, string> {
  return Object.fromEntries(Object.entries<AdvertiserKey>(names).map(([value, key]) => [value, t(key)])) as Record<S, string>;
}

/** Daily campaign statistics (all campaigns, or the given ones), every day of the period present. */
export function useDailyStatistics(period: Period, campaignIds?: string, goal = 0) {
  return useQuery({
    queryKey: advertiserKeys.statistics.daily(period, campaignIds ?? '', goal),
    queryFn: async (): Promise<DailyFigures> => {
      const rows = await data(
        api.GET('/api/advertiser/statistics', {
          params: {
            query: {
              groupDate: true,
              targetId: goal,
              filter: { dateFrom: period.from, dateTo: period.to, ...(campaignIds ? { id: campaignIds } : {}) },
            },
          },
        }),
      );
      const byDay = new Map(rows.map((row) => [row.date, row]));
      const days = daysBetween(period.from, period.to);
      const pick = (field: 'views' | 'clicks' | 'money' | 'orders') => days.map((day) => byDay.get(day)?.[field] ?? 0);
      return { days, views: pick('views'), clicks: pick('clicks'), money: pick('money'), orders: pick('orders') };
    },
  });
}

/** Campaign statistics summed over a period (asked for only while `enabled`). */
export function useTotals(period: Period, campaignIds?: string, goal = 0, enabled = true) {
  return useQuery({
    enabled,
    queryKey: advertiserKeys.statistics.total(period, campaignIds ?? '', goal),
    queryFn: async (): Promise<Totals> => {
      const rows = await data(
        api.GET('/api/advertiser/statistics', {
          params: {
            query: {
              targetId: goal,
              filter: { dateFrom: period.from, dateTo: period.to, ...(campaignIds ? { id: campaignIds } : {}) },
            },
          },
        }),
      );
      const row = rows[0];
      return row ?? { views: 0, clicks: 0, money: 0, orders: 0, ctr: 0, cpc: 0, cr: 0, cpo: 0 };
    },
  });
}

/**
 * The spend and clicks lines of an advertiser's daily chart (overview, campaign), with the previous
 * period's spend dashed beside them when the page compares; colours resolved for the canvas.
 */
export function useSpendAndClicksSeries(current: DailyFigures | undefined, previous: DailyFigures | undefined): Series[] {
  const { t } = useTranslation('advertiser');
  return useResolvedColors(
    useMemo(
      () =>
        current
          ? [
              { label: t('figure.spend'), values: current.money, color: 'var(--accent)', format: money },
              { label: t('figure.clicks'), values: current.clicks, color: 'var(--second)', format: count, right: true },
              ...(previous
                ? [
                    {
                      label: t('campaign.chart.spendBefore'),
                      values: previous.money,
                      color: 'var(--muted)',
                      format: money,
                      dashed: true,
                    },
                  ]
                : []),
            ]
          : [],
      [current, previous, t],
    ),
  );
}

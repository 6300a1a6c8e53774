import { useQuery } from '@tanstack/react-query';
import { api, data } from './api.ts';
import type { Period } from './components/period-picker.tsx';
import { daysBetween } from './format.ts';

export interface DailyFigures {
  days: string[];
  views: number[];
  clicks: number[];
  money: number[];
  orders: number[];
}

export interface Totals {
  views: number;
  clicks: number;
  money: number;
  orders: number;
  ctr: number;
  cpc: number;
  cr: number;
  cpo: number;
}

/** Daily campaign statistics (all campaigns, or the given ones), every day of the period present. */
export function useDailyStatistics(period: Period, campaignIds?: string, goal = 0) {
  return useQuery({
    queryKey: ['statistics', 'daily', period.from, period.to, campaignIds ?? '', goal],
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

/** Campaign statistics summed over a period. */
export function useTotals(period: Period, campaignIds?: string, goal = 0) {
  return useQuery({
    queryKey: ['statistics', 'total', period.from, period.to, campaignIds ?? '', goal],
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

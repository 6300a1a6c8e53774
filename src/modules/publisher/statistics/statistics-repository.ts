import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { Period } from '../../statistics/period.ts';
import type { PublisherTotals } from './figures.ts';

const sums = {
  views: sql<string>`coalesce(sum(stats_daily.views), 0)`,
  clicks: sql<string>`coalesce(sum(stats_daily.clicks), 0)`,
  income: sql<string>`coalesce(sum(stats_daily.publisher_income_micros), 0)`,
};

const toTotals = (row: { views: unknown; clicks: unknown; income: unknown }): PublisherTotals => ({
  views: Number(row.views),
  clicks: Number(row.clicks),
  incomeMicros: Number(row.income),
});

/** Rollup totals per site over a period (open ends unbounded); sites without traffic are absent. */
export async function totalsBySite(db: Db, siteIds: readonly number[], period: Period): Promise<Map<number, PublisherTotals>> {
  if (siteIds.length === 0) return new Map();
  let query = db
    .selectFrom('stats_daily')
    .select(['stats_daily.site_id', sums.views.as('views'), sums.clicks.as('clicks'), sums.income.as('income')])
    .where('stats_daily.site_id', 'in', [...siteIds])
    .groupBy('stats_daily.site_id');
  if (period.from !== undefined) query = query.where('stats_daily.day', '>=', period.from);
  if (period.to !== undefined) query = query.where('stats_daily.day', '<=', period.to);
  const rows = await query.execute();
  return new Map(rows.map((row) => [row.site_id, toTotals(row)]));
}

export interface DailyFilter {
  publisherId: number;
  period: Period;
  siteIds?: readonly number[];
  blockIds?: readonly number[];
}

/**
 * One row per day that has traffic on the publisher's sites, oldest first. Ownership is part of
 * the query (a join on sites), so another publisher's traffic can never be summed in.
 */
export async function dailyTotals(db: Db, filter: DailyFilter): Promise<{ day: string; totals: PublisherTotals }[]> {
  let query = db
    .selectFrom('stats_daily')
    .innerJoin('sites', 'sites.id', 'stats_daily.site_id')
    .select([
      sql<string>`to_char(stats_daily.day, 'YYYY-MM-DD')`.as('day'),
      sums.views.as('views'),
      sums.clicks.as('clicks'),
      sums.income.as('income'),
    ])
    .where('sites.publisher_id', '=', filter.publisherId)
    .groupBy('stats_daily.day')
    .orderBy('stats_daily.day');
  if (filter.period.from !== undefined) query = query.where('stats_daily.day', '>=', filter.period.from);
  if (filter.period.to !== undefined) query = query.where('stats_daily.day', '<=', filter.period.to);
  if (filter.siteIds !== undefined) query = query.where('stats_daily.site_id', 'in', [...filter.siteIds]);
  if (filter.blockIds !== undefined) query = query.where('stats_daily.block_id', 'in', [...filter.blockIds]);
  const rows = await query.execute();
  return rows.map((row) => ({ day: row.day, totals: toTotals(row) }));
}

import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { DatabaseSchema } from '../../../db/schema.ts';
import type { Period } from '../../statistics/period.ts';
import type { Totals } from '../../statistics/rates.ts';
import { GOALS } from '../../statistics/record-events.ts';

/** `targetId`: which conversions count as orders. 0 all goals; otherwise one goal of GOALS. */
export type TargetId = 0 | 1 | 2 | 3;

export const ZERO_TOTALS: Totals = { views: 0, clicks: 0, spendMicros: 0, orders: 0 };

type StatsBuilder = ExpressionBuilder<DatabaseSchema, 'stats_daily'>;

function ordersSum(targetId: TargetId) {
  switch (targetId) {
    case GOALS.purchase:
      return sql<number>`coalesce(sum(conversions_purchase), 0)`;
    case GOALS.registration:
      return sql<number>`coalesce(sum(conversions_registration), 0)`;
    case GOALS.intermediate:
      return sql<number>`coalesce(sum(conversions_intermediate), 0)`;
    default:
      return sql<number>`coalesce(sum(conversions_purchase + conversions_registration + conversions_intermediate), 0)`;
  }
}

export interface StatsFilter {
  campaignIds?: readonly number[];
  offerIds?: readonly number[];
  period: Period;
  targetId: TargetId;
}

/** What a statistics query is broken down by; an empty list is one row of totals. */
export type StatsGrouping = ('campaign_id' | 'offer_id' | 'day')[];

export interface StatsRow extends Totals {
  campaign_id: number;
  offer_id: number;
  day: string;
}

/**
 * The rollup that answers a filter: campaign totals per day (`stats_campaign_daily`, one row per
 * campaign and day) unless ads are filtered or grouped, then the per-ad rows of `stats_daily`,
 * whose primary key starts with (campaign_id, day) and whose offer index is (offer_id, day).
 */
function rollupFor(filter: StatsFilter, grouping: StatsGrouping = []) {
  // Typed as stats_daily: the campaign table has the same columns except the ad's and the place's,
  // and those are only used when this picks stats_daily.
  return (
    filter.offerIds === undefined && !grouping.includes('offer_id') ? 'stats_campaign_daily' : 'stats_daily'
  ) as 'stats_daily';
}

/**
 * Sums the daily rollup over a filter, broken down by the given keys, ordered by them. Every
 * statistic of the advertiser API is one call of this.
 */
export async function sumStats(db: Db, filter: StatsFilter, grouping: StatsGrouping): Promise<StatsRow[]> {
  if (filter.campaignIds?.length === 0 || filter.offerIds?.length === 0) return [];
  let query = db
    .selectFrom(rollupFor(filter, grouping))
    .select(grouping)
    .select([
      sql<number>`coalesce(sum(views), 0)`.as('views'),
      sql<number>`coalesce(sum(clicks), 0)`.as('clicks'),
      sql<number>`coalesce(sum(spend_micros), 0)`.as('spendMicros'),
      ordersSum(filter.targetId).as('orders'),
    ])
    .where((eb: StatsBuilder) => {
      const conditions = [];
      if (filter.campaignIds) conditions.push(eb('campaign_id', 'in', filter.campaignIds));
      if (filter.offerIds) conditions.push(eb('offer_id', 'in', filter.offerIds));
      if (filter.period.from) conditions.push(eb('day', '>=', filter.period.from));
      if (filter.period.to) conditions.push(eb('day', '<=', filter.period.to));
      return eb.and(conditions);
    });
  if (grouping.length > 0) query = query.groupBy(grouping);
  for (const key of grouping) query = query.orderBy(key);
  const rows = await query.execute();
  return rows.map((row) => ({
    campaign_id: Number(row.campaign_id ?? 0),
    offer_id: Number(row.offer_id ?? 0),
    day: String(row.day ?? ''),
    views: Number(row.views),
    clicks: Number(row.clicks),
    spendMicros: Number(row.spendMicros),
    orders: Number(row.orders),
  }));
}

/** Totals per campaign (lifetime or over the period); campaigns without traffic are absent. */
export async function totalsByCampaign(db: Db, filter: StatsFilter): Promise<Map<number, Totals>> {
  const rows = await sumStats(db, filter, ['campaign_id']);
  return new Map(rows.map((row) => [row.campaign_id, row]));
}

/** Totals per ad (lifetime or over the period); ads without traffic are absent. */
export async function totalsByOffer(db: Db, filter: StatsFilter): Promise<Map<number, Totals>> {
  const rows = await sumStats(db, filter, ['offer_id']);
  return new Map(rows.map((row) => [row.offer_id, row]));
}

/** The first and last day with data for the filter, or undefined when there is none. */
export async function dataSpan(db: Db, filter: StatsFilter): Promise<{ first: string; last: string } | undefined> {
  if (filter.campaignIds?.length === 0 || filter.offerIds?.length === 0) return undefined;
  const row = await db
    .selectFrom(rollupFor(filter))
    .select([sql<string | null>`min(day)::text`.as('first'), sql<string | null>`max(day)::text`.as('last')])
    .where((eb: StatsBuilder) => {
      const conditions = [];
      if (filter.campaignIds) conditions.push(eb('campaign_id', 'in', filter.campaignIds));
      if (filter.offerIds) conditions.push(eb('offer_id', 'in', filter.offerIds));
      if (filter.period.from) conditions.push(eb('day', '>=', filter.period.from));
      if (filter.period.to) conditions.push(eb('day', '<=', filter.period.to));
      return eb.and(conditions);
    })
    .executeTakeFirst();
  if (!row?.first || !row.last) return undefined;
  return { first: row.first, last: row.last };
}

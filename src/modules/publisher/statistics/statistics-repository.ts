import type { Db } from '../../../db/database.ts';
import type { Period } from '../../statistics/period.ts';
import type { RollupCounter } from '../../statistics/record-events.ts';
import { SUMMARY_SHAPES } from '../../statistics/summaries.ts';
import { sumSummaries } from '../../statistics/summary-repository.ts';
import type { PublisherTotals } from './figures.ts';

const toTotals = (row: Record<RollupCounter, number>): PublisherTotals => ({
  views: row.views,
  clicks: row.clicks,
  incomeMicros: row.publisher_income_micros,
  served: row.served,
  refundedClicks: row.refunded_clicks,
  refundedIncomeMicros: row.refunded_publisher_income_micros,
});

/** Totals per site over a period (open ends unbounded), from the block summaries; sites without traffic are absent. */
export async function totalsBySite(db: Db, siteIds: readonly number[], period: Period): Promise<Map<number, PublisherTotals>> {
  const rows = await sumSummaries(db, { shape: SUMMARY_SHAPES.block, keyA: siteIds, period, grain: 'total', groupBy: ['key_a'] });
  return new Map(rows.map((row) => [row.key_a, toTotals(row)]));
}

export interface DailyFilter {
  publisherId: number;
  period: Period;
  /** The publisher's own sites, as the caller checked them; with `blockIds`, the sites of those blocks. */
  siteIds?: readonly number[];
  /** Blocks of the publisher's own sites, as the caller checked them. */
  blockIds?: readonly number[];
  /** One row per hour (day and hour) rather than per day. */
  hourly?: boolean;
}

/**
 * One row per day (or hour) that has traffic on the publisher's sites, oldest first: the
 * publisher's summaries, or with site or block filters the block summaries of those sites. The
 * filters must hold only the publisher's own sites and blocks (the service checks them and
 * answers 404 otherwise), so that another publisher's traffic is never summed in.
 */
export async function dailyTotals(
  db: Db,
  filter: DailyFilter,
): Promise<{ day: string; hour: number; totals: PublisherTotals }[]> {
  const bySite = filter.siteIds !== undefined || filter.blockIds !== undefined;
  if (bySite && (filter.siteIds ?? []).length === 0) return [];
  const rows = await sumSummaries(db, {
    shape: bySite ? SUMMARY_SHAPES.block : SUMMARY_SHAPES.publisher,
    keyA: bySite ? (filter.siteIds ?? []) : [filter.publisherId],
    keyB: filter.blockIds,
    period: filter.period,
    grain: filter.hourly ? 'hour' : 'day',
    groupBy: [],
  });
  return rows.map((row) => ({ day: row.day, hour: row.hour, totals: toTotals(row) }));
}

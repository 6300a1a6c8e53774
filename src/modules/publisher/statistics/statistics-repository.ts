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
  siteIds?: readonly number[];
  blockIds?: readonly number[];
  /** One row per hour (day and hour) rather than per day. */
  hourly?: boolean;
}

/** The sites of the publisher's blocks among `blockIds`: the block summaries are keyed by site first. */
async function sitesOfOwnBlocks(db: Db, publisherId: number, blockIds: readonly number[]): Promise<number[]> {
  if (blockIds.length === 0) return [];
  const rows = await db
    .selectFrom('blocks')
    .innerJoin('sites', 'sites.id', 'blocks.site_id')
    .select('blocks.site_id')
    .distinct()
    .where('blocks.id', 'in', [...blockIds])
    .where('sites.publisher_id', '=', publisherId)
    .execute();
  return rows.map((row) => row.site_id);
}

/**
 * One row per day (or hour) that has traffic on the publisher's sites, oldest first: the
 * publisher's summaries, or with site or block filters the block summaries of the publisher's own
 * sites (so another publisher's traffic can never be summed in).
 */
export async function dailyTotals(
  db: Db,
  filter: DailyFilter,
): Promise<{ day: string; hour: number; totals: PublisherTotals }[]> {
  const grain = filter.hourly ? 'hour' : 'day';
  let rows: Awaited<ReturnType<typeof sumSummaries>>;
  if (filter.siteIds === undefined && filter.blockIds === undefined) {
    rows = await sumSummaries(db, {
      shape: SUMMARY_SHAPES.publisher,
      keyA: [filter.publisherId],
      period: filter.period,
      grain,
      groupBy: [],
    });
  } else {
    const candidates = filter.siteIds ?? (await sitesOfOwnBlocks(db, filter.publisherId, filter.blockIds ?? []));
    if (candidates.length === 0) return [];
    const ownSites = await db
      .selectFrom('sites')
      .select('id')
      .where('publisher_id', '=', filter.publisherId)
      .where('id', 'in', [...candidates])
      .execute();
    rows = await sumSummaries(db, {
      shape: SUMMARY_SHAPES.block,
      keyA: ownSites.map((site) => site.id),
      keyB: filter.blockIds,
      period: filter.period,
      grain,
      groupBy: [],
    });
  }
  return rows.map((row) => ({ day: row.day, hour: row.hour, totals: toTotals(row) }));
}

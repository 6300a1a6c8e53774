import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { publisherTotalsOf, totalsOf } from './figures.ts';
import type { Period } from './period.ts';
import { SPANS, SUMMARY_SHAPES } from './summaries.ts';
import { type SummaryKey, sumSummaries } from './summary-repository.ts';
import type { PublisherTotals, TargetId, Totals } from './vocabulary.ts';

/**
 * The sums every statistic of the API is read with: the advertiser's per campaign, ad, site,
 * block and device, the publisher's per site, block and day. All of them read the summaries
 * (stats_rollups) through sumSummaries.
 */

export interface StatsFilter {
  /**
   * These campaigns. With `offerIds`, the ads' own campaigns: rows match on both keys, so a
   * campaign none of the ads belongs to adds nothing but one more range of the index to read.
   */
  campaignIds: readonly number[];
  offerIds?: readonly number[];
  period: Period;
  targetId: TargetId;
}

/** What a statistics query is broken down by; an empty list is one row of totals. */
export type StatsGrouping = ('campaign_id' | 'offer_id' | 'day' | 'hour')[];

export interface StatsRow extends Totals {
  campaign_id: number;
  offer_id: number;
  day: string;
  hour: number;
}

/**
 * The summary rows that answer a filter: campaign summaries unless ads are filtered or grouped,
 * then the ad summaries (keyed by campaign, then ad).
 */
function summaryKeys(filter: StatsFilter, grouping: StatsGrouping) {
  const byOffer = filter.offerIds !== undefined || grouping.includes('offer_id');
  return {
    shape: byOffer ? SUMMARY_SHAPES.offer : SUMMARY_SHAPES.campaign,
    keyA: filter.campaignIds,
    keyB: filter.offerIds,
  };
}

/**
 * Sums the statistics summaries over a filter, broken down by the given keys, ordered by them.
 * Every statistic of the advertiser API is one call of this.
 */
export async function sumStats(db: Db, filter: StatsFilter, grouping: StatsGrouping): Promise<StatsRow[]> {
  if (filter.campaignIds.length === 0 || filter.offerIds?.length === 0) return [];
  const keys = summaryKeys(filter, grouping);
  const groupBy: SummaryKey[] = [];
  if (grouping.includes('campaign_id')) groupBy.push('key_a');
  if (grouping.includes('offer_id')) groupBy.push('key_b');
  const grain = grouping.includes('hour') ? 'hour' : grouping.includes('day') ? 'day' : 'total';
  const rows = await sumSummaries(db, { ...keys, period: filter.period, grain, groupBy });
  return rows.map((row) => ({
    campaign_id: row.key_a,
    offer_id: row.key_b,
    day: row.day,
    hour: row.hour,
    ...totalsOf(row, filter.targetId),
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

/**
 * The first and last day with data for the filter, or undefined when there is none: per key, the
 * first and last day summary of the primary key's order (two index probes each).
 */
export async function dataSpan(db: Db, filter: StatsFilter): Promise<{ first: string; last: string } | undefined> {
  if (filter.campaignIds?.length === 0 || filter.offerIds?.length === 0) return undefined;
  const keys = summaryKeys(filter, []);
  if (keys.keyA.length === 0) return undefined;
  const conditions = [sql`s.shape = ${keys.shape}`, sql`s.key_a = k.id`, sql`s.span = ${SPANS.day}`];
  if (keys.keyB !== undefined) conditions.push(sql`s.key_b = ANY(${[...keys.keyB]}::integer[])`);
  if (filter.period.from !== undefined) conditions.push(sql`s.day >= ${filter.period.from}::date`);
  if (filter.period.to !== undefined) conditions.push(sql`s.day <= ${filter.period.to}::date`);
  const where = sql.join(conditions, sql` AND `);
  const result = await sql<{ first: string | null; last: string | null }>`
    SELECT to_char(min(f.day), 'YYYY-MM-DD') AS first, to_char(max(l.day), 'YYYY-MM-DD') AS last
    FROM unnest(${[...keys.keyA]}::integer[]) AS k(id)
    CROSS JOIN LATERAL (SELECT s.day FROM stats_rollups s WHERE ${where} ORDER BY s.day LIMIT 1) AS f
    CROSS JOIN LATERAL (SELECT s.day FROM stats_rollups s WHERE ${where} ORDER BY s.day DESC LIMIT 1) AS l`.execute(db);
  const row = result.rows[0];
  if (!row?.first || !row.last) return undefined;
  return { first: row.first, last: row.last };
}

/** Totals per site over a period (open ends unbounded), from the block summaries; sites without traffic are absent. */
export async function totalsBySite(db: Db, siteIds: readonly number[], period: Period): Promise<Map<number, PublisherTotals>> {
  const rows = await sumSummaries(db, { shape: SUMMARY_SHAPES.block, keyA: siteIds, period, grain: 'total', groupBy: ['key_a'] });
  return new Map(rows.map((row) => [row.key_a, publisherTotalsOf(row)]));
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
  return rows.map((row) => ({ day: row.day, hour: row.hour, totals: publisherTotalsOf(row) }));
}

type TrafficKey = 'site_id' | 'block_id' | 'device';

const TRAFFIC_SHAPES = {
  site: { shape: SUMMARY_SHAPES.campaignSite, keys: ['site_id'] },
  block: { shape: SUMMARY_SHAPES.campaignPlace, keys: ['site_id', 'block_id'] },
  device: { shape: SUMMARY_SHAPES.campaignDevice, keys: ['device'] },
} as const;

/**
 * A campaign's traffic in a period from the statistics summaries: per site (campaign site rows),
 * per site and block (campaign place rows, optionally only of `places`) or per device (campaign
 * device rows).
 */
async function trafficBy<K extends TrafficKey>(
  db: Db,
  campaignId: number,
  period: Period,
  targetId: TargetId,
  by: keyof typeof TRAFFIC_SHAPES,
  places?: readonly { siteId: number; blockId: number }[],
): Promise<(Record<K, number> & Totals)[]> {
  const { shape, keys } = TRAFFIC_SHAPES[by];
  const rows = await sumSummaries(db, {
    shape,
    keyA: [campaignId],
    keyB: places?.map((place) => place.siteId),
    keyC: places?.map((place) => place.blockId),
    period,
    grain: 'total',
    groupBy: keys.length === 2 ? ['key_b', 'key_c'] : ['key_b'],
  });
  const wanted = places === undefined ? undefined : new Set(places.map((place) => `${place.siteId}s${place.blockId}`));
  return rows
    .filter((row) => wanted === undefined || wanted.has(`${row.key_b}s${row.key_c}`))
    .map((row) => {
      const keyed: Partial<Record<TrafficKey, number>> = {};
      keyed[keys[0]] = row.key_b;
      if (keys.length === 2) keyed.block_id = row.key_c;
      return { ...keyed, ...totalsOf(row, targetId) } as Record<K, number> & Totals;
    });
}

export const trafficBySite = (db: Db, campaignId: number, period: Period, targetId: TargetId) =>
  trafficBy<'site_id'>(db, campaignId, period, targetId, 'site');

/** Per block; with `places`, only those blocks (a few coefficients rather than every block). */
export const trafficByBlock = (
  db: Db,
  campaignId: number,
  period: Period,
  targetId: TargetId,
  places?: readonly { siteId: number; blockId: number }[],
) => trafficBy<'site_id' | 'block_id'>(db, campaignId, period, targetId, 'block', places);

export const trafficByDevice = (db: Db, campaignId: number, period: Period, targetId: TargetId) =>
  trafficBy<'device'>(db, campaignId, period, targetId, 'device');

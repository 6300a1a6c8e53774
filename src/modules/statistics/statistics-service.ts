import type { Db } from '../../db/database.ts';
import { invalidField, notFound } from '../../errors.ts';
import { advertiserFigures, publisherFigures } from './figures.ts';
import type { AdvertiserObjects, PublisherObjects } from './owned-objects.ts';
import { isIsoDate, type Period, readPeriod, requireHourlyPeriod } from './period.ts';
import {
  dailyTotals,
  dataSpan,
  type StatsFilter,
  type StatsGrouping,
  totalsByOffer as sumByOffer,
  sumStats,
} from './statistics-repository.ts';
import { readIdList, type TargetId, type Totals, ZERO_TOTALS } from './vocabulary.ts';

/**
 * The one read API of statistics: the advertiser's and the publisher's statistics routes call it,
 * and so do the modules that show figures beside their objects (campaigns, ads, sites,
 * coefficients). The sums themselves are in statistics-repository.ts.
 */
export {
  type StatsFilter,
  totalsByCampaign,
  totalsBySite,
  trafficByBlock,
  trafficByDevice,
  trafficBySite,
} from './statistics-repository.ts';

export interface StatisticsFilter {
  dateFrom?: string;
  dateTo?: string;
  date?: string;
  id?: string;
  campaignId?: string;
}

export interface StatisticsRequest {
  advertiserId: number;
  scope: 'campaigns' | 'offers';
  filter: StatisticsFilter;
  groupDate: boolean;
  /** One row per hour with data (date and hour); the period must be closed and at most 7 days. */
  groupHour: boolean;
  targetId: TargetId;
  /** Today in the platform time zone: the end of an open period with no data. */
  today: string;
}

export type StatisticsRow = { id?: number; date: string; hour?: number } & ReturnType<typeof advertiserFigures>;

/**
 * Totals per ad (lifetime or over the period); ads without traffic are absent. `campaignIds`: the
 * ads' campaigns, whose summaries are read.
 */
export async function totalsByOffer(
  db: Db,
  filter: { offerIds: readonly number[]; campaignIds: readonly number[]; period: Period; targetId: TargetId },
): Promise<Map<number, Totals>> {
  return sumByOffer(db, { ...filter, campaignIds: [...filter.campaignIds] });
}

/**
 * The `date` of a row that covers a whole period: the ISO 8601 interval `first/last`. An open
 * start is the first day with data (the end when there is none); an open end is the last day with
 * data, or today when there is none (never before the start).
 */
async function periodInterval(db: Db, filter: StatsFilter, today: string): Promise<string> {
  const { from, to } = filter.period;
  const span = from !== undefined && to !== undefined ? undefined : await dataSpan(db, filter);
  let last = to ?? span?.last ?? today;
  const first = from ?? span?.first ?? last;
  if (to === undefined && last < first) last = first;
  return `${first}/${last}`;
}

/** Which rows to sum for a request, after checking every id belongs to the caller (404 otherwise). */
async function resolveFilter(
  db: Db,
  objects: AdvertiserObjects,
  request: StatisticsRequest,
): Promise<{ filter: StatsFilter; byOffer: boolean }> {
  const { advertiserId, filter: raw, targetId } = request;
  if (request.scope === 'campaigns') {
    const period = readPeriod({ from: raw.dateFrom, to: raw.dateTo }, { from: 'filter[dateFrom]', to: 'filter[dateTo]' });
    const ids = readIdList(raw.id, 'filter[id]');
    const own = await objects.ownCampaignIds(db, advertiserId, ids);
    if (ids !== undefined && own.length !== ids.length) throw notFound('Campaign');
    return { filter: { campaignIds: own, period, targetId }, byOffer: false };
  }
  const offerId = readSingleId(raw.id, 'filter[id]');
  const campaignId = readSingleId(raw.campaignId, 'filter[campaignId]');
  if (raw.date !== undefined && raw.date !== '' && !isIsoDate(raw.date)) {
    throw invalidField('filter[date]', 'Must be a date in ISO 8601 format, YYYY-MM-DD.');
  }
  const date = raw.date === '' ? undefined : raw.date;
  if (campaignId !== undefined && date === undefined) {
    throw invalidField('filter[date]', 'Is required with filter[campaignId].');
  }
  let period: Period;
  if (date !== undefined) period = { from: date, to: date };
  else period = readPeriod({ from: raw.dateFrom, to: raw.dateTo }, { from: 'filter[dateFrom]', to: 'filter[dateTo]' });
  if (campaignId !== undefined && (await objects.ownCampaignIds(db, advertiserId, [campaignId])).length === 0) {
    throw notFound('Campaign');
  }
  if (offerId === undefined) {
    const campaignIds = campaignId === undefined ? await objects.ownCampaignIds(db, advertiserId) : [campaignId];
    return { filter: { campaignIds, period, targetId }, byOffer: true };
  }
  // One ad is read from its own campaign's summaries only, not from every campaign of the advertiser.
  const ofOffer = await objects.campaignOfOwnOffer(db, advertiserId, offerId);
  if (ofOffer === undefined) throw notFound('Offer');
  const campaignIds = campaignId === undefined || campaignId === ofOffer ? [ofOffer] : [];
  return { filter: { campaignIds, offerIds: [offerId], period, targetId }, byOffer: true };
}

function readSingleId(value: string | undefined, field: string): number | undefined {
  const ids = readIdList(value, field);
  if (ids !== undefined && ids.length > 1) throw invalidField(field, 'Must be one numeric id.');
  return ids?.[0];
}

/**
 * Campaign statistics (summed over the selected campaigns) or ad statistics (one row per ad):
 * one row for the whole period, or with groupDate one row per day that has data.
 */
export async function advertiserStatistics(
  db: Db,
  objects: AdvertiserObjects,
  request: StatisticsRequest,
): Promise<StatisticsRow[]> {
  const { filter, byOffer } = await resolveFilter(db, objects, request);
  if (request.groupHour) {
    requireHourlyPeriod(filter.period, 'groupHour', { from: 'filter[dateFrom]', to: 'filter[dateTo]' });
  }
  const perDay = request.groupDate || request.groupHour;
  const grouping: StatsGrouping = [];
  if (byOffer) grouping.push('offer_id');
  if (request.groupHour) grouping.push('hour');
  else if (request.groupDate) grouping.push('day');
  const rows = await sumStats(db, filter, grouping);
  // Campaign totals for a period are always one row, zeros when nothing happened.
  if (!byOffer && !perDay && rows.length === 0) rows.push({ ...ZERO_TOTALS, campaign_id: 0, offer_id: 0, day: '', hour: 0 });
  const interval = perDay ? '' : await periodInterval(db, filter, request.today);
  const result: StatisticsRow[] = rows.map((row) => ({
    ...(byOffer ? { id: row.offer_id } : {}),
    date: perDay ? row.day : interval,
    ...(request.groupHour ? { hour: row.hour } : {}),
    ...advertiserFigures(row),
  }));
  if (byOffer && perDay) result.sort(byTimeThenAd);
  return result;
}

/** Rows of ad statistics per day or hour: oldest first, then by ad. */
function byTimeThenAd(a: StatisticsRow, b: StatisticsRow): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  if ((a.hour ?? 0) !== (b.hour ?? 0)) return (a.hour ?? 0) - (b.hour ?? 0);
  return (a.id ?? 0) - (b.id ?? 0);
}

/**
 * The publisher's statistics, one row per day (or hour) that has traffic in the period. Every listed site
 * and block must be the caller's: an unknown or another publisher's id is a 404, as a direct read
 * of that object would be. Site and block filters combine (a row counts when both match).
 */
export async function publisherStatistics(
  db: Db,
  objects: PublisherObjects,
  publisherId: number,
  filter: { period: Period; siteIds?: number[]; blockIds?: number[]; hourly?: boolean },
) {
  let siteIds = filter.siteIds;
  if (siteIds !== undefined) {
    const own = await objects.ownSiteIds(db, publisherId, siteIds);
    if (siteIds.some((id) => !own.has(id))) throw notFound('Site');
  }
  if (filter.blockIds !== undefined) {
    const own = await objects.ownBlockSites(db, publisherId, filter.blockIds);
    if (filter.blockIds.some((id) => !own.has(id))) throw notFound('Block');
    siteIds ??= [...new Set(own.values())];
  }
  const days = await dailyTotals(db, { publisherId, ...filter, siteIds });
  return days.map(({ day, hour, totals }) => ({
    date: day,
    ...(filter.hourly ? { hour } : {}),
    ...publisherFigures(totals),
  }));
}

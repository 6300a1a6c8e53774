import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** The grouping columns of an export, by the API's names; the rollup's key columns. */
export const GROUP_COLUMNS = {
  day: 'day',
  campaign: 'campaign_id',
  ad: 'offer_id',
  site: 'site_id',
  block: 'block_id',
  device: 'device',
  country: 'country',
} as const;
export type Grouping = keyof typeof GROUP_COLUMNS;
export const GROUPINGS = Object.keys(GROUP_COLUMNS) as Grouping[];

/**
 * Whose figures: an advertiser's campaigns (all, or only `campaignIds` among them), or a
 * publisher's sites. Ownership is part of every query.
 */
export type Owner = { advertiserId: number; campaignIds?: readonly number[] } | { publisherId: number };

/** The summed counters of an export row; money in micros. */
export const ADVERTISER_SUMS = [
  'served',
  'views',
  'clicks',
  'spend_micros',
  'conversions_purchase',
  'conversions_registration',
  'conversions_intermediate',
  'refunded_clicks',
  'refunded_spend_micros',
] as const;
export const PUBLISHER_SUMS = [
  'served',
  'views',
  'clicks',
  'publisher_income_micros',
  'refunded_clicks',
  'refunded_publisher_income_micros',
] as const;
export type SumColumn = (typeof ADVERTISER_SUMS)[number] | (typeof PUBLISHER_SUMS)[number];

export type StatsExportRow = Record<string, string | number>;

function ownerCondition(owner: Owner): RawBuilder<unknown> {
  if (!('advertiserId' in owner)) return sql`site_id IN (SELECT id FROM sites WHERE publisher_id = ${owner.publisherId})`;
  const own = sql`campaign_id IN (SELECT id FROM campaigns WHERE advertiser_id = ${owner.advertiserId})`;
  return owner.campaignIds === undefined ? own : sql`${own} AND campaign_id = ANY(${[...owner.campaignIds]}::integer[])`;
}

/** The first and last day with figures of the owner in the period; undefined when there are none. */
export async function statsDaySpan(
  db: Db,
  owner: Owner,
  period: { from: string; to: string },
): Promise<{ first: string; last: string } | undefined> {
  const result = await sql<{ first: string | null; last: string | null }>`
    SELECT min(day)::text AS first, max(day)::text AS last FROM stats_daily
    WHERE ${ownerCondition(owner)} AND day BETWEEN ${period.from} AND ${period.to}`.execute(db);
  const row = result.rows[0];
  return row?.first && row.last ? { first: row.first, last: row.last } : undefined;
}

/**
 * One page of grouped rollup rows after `after` (keyset on the grouping columns, in their order),
 * at most `limit` of them. The keyset condition applies before grouping: the grouping columns are
 * the rollup's own, so the rows of the groups after `after` are exactly the rows after it.
 */
export async function statsExportPage(
  db: Db,
  query: {
    owner: Owner;
    period: { from: string; to: string };
    groups: readonly Grouping[];
    sums: readonly SumColumn[];
    after: readonly (string | number)[] | undefined;
    limit: number;
  },
): Promise<StatsExportRow[]> {
  const keys = query.groups.map((group) => sql.ref(GROUP_COLUMNS[group]));
  const selectKeys = query.groups.map((group) =>
    group === 'day' ? sql`day::text AS day` : sql`${sql.ref(GROUP_COLUMNS[group])} AS ${sql.ref(group)}`,
  );
  const sums = query.sums.map((column) => sql`sum(${sql.ref(column)})::bigint AS ${sql.ref(column)}`);
  const after =
    query.after === undefined || keys.length === 0
      ? sql`true`
      : sql`(${sql.join(keys)}) > (${sql.join(query.after.map((value, index) => (query.groups[index] === 'day' ? sql`${value}::date` : sql`${value}`)))})`;
  const groupBy = keys.length === 0 ? sql`` : sql`GROUP BY ${sql.join(keys)} ORDER BY ${sql.join(keys)}`;
  const result = await sql<StatsExportRow>`
    SELECT ${sql.join([...selectKeys, ...sums])} FROM stats_daily
    WHERE ${ownerCondition(query.owner)} AND day BETWEEN ${query.period.from}::date AND ${query.period.to}::date AND ${after}
    ${groupBy} LIMIT ${query.limit}`.execute(db);
  return result.rows;
}

export interface ClickExportRow {
  created_at: Date;
  click_id: string;
  campaign_id: number;
  offer_id: number;
  site_id: number;
  block_id: number;
  device: number;
  country: string;
  status: string;
  charge_micros: number;
}

/**
 * One page of an advertiser's settled clicks (of `campaignIds` only, when given) from `from`
 * (inclusive) to `to` (exclusive), in time then id order, after the keyset `after`
 * (clicks_advertiser_time_idx; the campaign condition filters that range, it does not need an
 * index of its own).
 */
export async function clickExportPage(
  db: Db,
  query: {
    advertiserId: number;
    campaignIds?: readonly number[] | undefined;
    from: Date;
    to: Date;
    after: { at: Date; id: string } | undefined;
    limit: number;
  },
): Promise<ClickExportRow[]> {
  let select = db
    .selectFrom('clicks')
    .select([
      'created_at',
      'click_id',
      'campaign_id',
      'offer_id',
      'site_id',
      'block_id',
      'device',
      'country',
      'status',
      'charge_micros',
    ])
    .where('advertiser_id', '=', query.advertiserId)
    .where('created_at', '>=', query.from)
    .where('created_at', '<', query.to);
  if (query.campaignIds !== undefined) select = select.where('campaign_id', 'in', [...query.campaignIds]);
  const after = query.after;
  if (after !== undefined) {
    select = select.where((eb) => eb(eb.refTuple('created_at', 'click_id'), '>', eb.tuple(after.at, after.id)));
  }
  return select.orderBy('created_at').orderBy('click_id').limit(query.limit).execute();
}

/** The instant a platform-time-zone day starts. */
export async function dayStart(db: Db, day: string, timeZone: string): Promise<Date> {
  const result = await sql<{ at: Date }>`SELECT (${day}::date::timestamp AT TIME ZONE ${timeZone}) AS at`.execute(db);
  const row = result.rows[0];
  if (row === undefined) throw new Error('no answer for a day start');
  return new Date(row.at);
}

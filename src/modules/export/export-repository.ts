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
  'invalid_clicks',
] as const;
export const PUBLISHER_SUMS = [
  'served',
  'views',
  'clicks',
  'publisher_income_micros',
  'refunded_clicks',
  'refunded_publisher_income_micros',
  'invalid_clicks',
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
 * The names of a row's places, as they are now, read in the statement of its figures: the
 * campaign's and ad's titles, the site's address (the file shows its domain), the block's title.
 * Null when the row is gone (or, for block 0, never was).
 */
export interface PlaceNames {
  campaign_title: string | null;
  ad_title: string | null;
  site_url: string | null;
  block_title: string | null;
}

/** The name columns of the grouped page's places: a LEFT JOIN each, by primary key. */
const NAME_JOINS: Partial<Record<Grouping, { select: RawBuilder<unknown>; join: RawBuilder<unknown> }>> = {
  campaign: { select: sql`c.title AS campaign_title`, join: sql`LEFT JOIN campaigns c ON c.id = g.campaign` },
  ad: { select: sql`o.title AS ad_title`, join: sql`LEFT JOIN offers o ON o.id = g.ad` },
  site: { select: sql`s.url AS site_url`, join: sql`LEFT JOIN sites s ON s.id = g.site` },
  block: { select: sql`b.title AS block_title`, join: sql`LEFT JOIN blocks b ON b.id = g.block` },
};

/**
 * One page of grouped rollup rows after `after` (keyset on the grouping columns, in their order),
 * at most `limit` of them, with the names of their campaigns, ads, sites and blocks. The keyset
 * condition applies before grouping: the grouping columns are the rollup's own, so the rows of the
 * groups after `after` are exactly the rows after it. Names are joined to the page in the same
 * statement, so figures and names are one snapshot.
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
): Promise<(StatsExportRow & Partial<PlaceNames>)[]> {
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
  const names = query.groups.flatMap((group) => NAME_JOINS[group] ?? []);
  const orderBy =
    query.groups.length === 0 ? sql`` : sql`ORDER BY ${sql.join(query.groups.map((group) => sql.ref(`g.${group}`)))}`;
  const result = await sql<StatsExportRow & Partial<PlaceNames>>`
    SELECT ${sql.join([sql`g.*`, ...names.map((name) => name.select)])} FROM (
      SELECT ${sql.join([...selectKeys, ...sums])} FROM stats_daily
      WHERE ${ownerCondition(query.owner)} AND day BETWEEN ${query.period.from}::date AND ${query.period.to}::date AND ${after}
      ${groupBy} LIMIT ${query.limit}
    ) g ${sql.join(
      names.map((name) => name.join),
      sql` `,
    )}
    ${orderBy}`.execute(db);
  return result.rows;
}

export interface ClickExportRow extends PlaceNames {
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
 * One page of an advertiser's settled clicks, with the names of their places (one statement), (of `campaignIds` only, when given) from `from`
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
    .selectFrom('clicks as k')
    .leftJoin('campaigns as c', 'c.id', 'k.campaign_id')
    .leftJoin('offers as o', 'o.id', 'k.offer_id')
    .leftJoin('sites as s', 's.id', 'k.site_id')
    .leftJoin('blocks as b', 'b.id', 'k.block_id')
    .select([
      'k.created_at',
      'k.click_id',
      'k.campaign_id',
      'k.offer_id',
      'k.site_id',
      'k.block_id',
      'k.device',
      'k.country',
      'k.status',
      'k.charge_micros',
      'c.title as campaign_title',
      'o.title as ad_title',
      's.url as site_url',
      'b.title as block_title',
    ])
    .where('k.advertiser_id', '=', query.advertiserId)
    .where('k.created_at', '>=', query.from)
    .where('k.created_at', '<', query.to);
  if (query.campaignIds !== undefined) select = select.where('k.campaign_id', 'in', [...query.campaignIds]);
  const after = query.after;
  if (after !== undefined) {
    select = select.where((eb) => eb(eb.refTuple('k.created_at', 'k.click_id'), '>', eb.tuple(after.at, after.id)));
  }
  return select.orderBy('k.created_at').orderBy('k.click_id').limit(query.limit).execute();
}

/** The instant a platform-time-zone day starts. */
export async function dayStart(db: Db, day: string, timeZone: string): Promise<Date> {
  const result = await sql<{ at: Date }>`SELECT (${day}::date::timestamp AT TIME ZONE ${timeZone}) AS at`.execute(db);
  const row = result.rows[0];
  if (row === undefined) throw new Error('no answer for a day start');
  return new Date(row.at);
}

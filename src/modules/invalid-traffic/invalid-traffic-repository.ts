import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { SiteReviewsTable } from '../../db/schema.ts';
import type { InvalidOutcome, InvalidReason } from './reasons.ts';

/**
 * The SQL of invalid traffic's disclosure: clicks refused on arrival (`clicks`, status `bot`) and
 * billed clicks refunded since (`refunded_clicks` with their refund's reason), read together by
 * the click's own time, and the operators' review queue (`site_reviews`).
 */

/** Instants: clicks at or after `from` and before `to`; an absent end is unbounded. */
export interface TimeRange {
  from?: Date;
  to?: Date;
}

/** Whose invalid clicks: an advertiser's (optionally one campaign's), a publisher's (optionally one site's), or any. */
export type Owner =
  | { advertiserId: number; campaignId?: number }
  | { publisherId: number; siteId?: number }
  | { siteId?: number };

export interface ReasonRow {
  outcome: InvalidOutcome;
  reason: InvalidReason;
  clicks: number;
  /** What the refunded clicks had been charged (0 for refused clicks: nothing was). */
  charge_micros: number;
  /** The publisher's share taken back (0 for refused clicks: nothing was paid). */
  publisher_micros: number;
}

function clickConditions(alias: string, owner: Owner, range: TimeRange): RawBuilder<unknown>[] {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  const conditions: RawBuilder<unknown>[] = [];
  if ('advertiserId' in owner) conditions.push(sql`${column('advertiser_id')} = ${owner.advertiserId}`);
  if ('advertiserId' in owner && owner.campaignId !== undefined) {
    conditions.push(sql`${column('campaign_id')} = ${owner.campaignId}`);
  }
  if ('publisherId' in owner) conditions.push(sql`${column('publisher_id')} = ${owner.publisherId}`);
  if ('siteId' in owner && owner.siteId !== undefined) conditions.push(sql`${column('site_id')} = ${owner.siteId}`);
  if (range.from !== undefined) conditions.push(sql`${column('created_at')} >= ${range.from}`);
  if (range.to !== undefined) conditions.push(sql`${column('created_at')} < ${range.to}`);
  return conditions;
}

const where = (conditions: RawBuilder<unknown>[]) =>
  conditions.length === 0 ? sql`` : sql` AND ${sql.join(conditions, sql` AND `)}`;

/**
 * Invalid clicks by outcome and reason: the refused ones (a refused click without a reason is a
 * declared robot, `bot`) and the refunded ones with what they had been charged and paid.
 */
export async function invalidClicksByReason(db: Db, owner: Owner, range: TimeRange): Promise<ReasonRow[]> {
  const result = await sql<ReasonRow>`
    SELECT 'refused' AS outcome, coalesce(c.invalid_reason, 'bot') AS reason, count(*)::integer AS clicks,
      0::bigint AS charge_micros, 0::bigint AS publisher_micros
    FROM clicks AS c
    WHERE c.status = 'bot'${where(clickConditions('c', owner, range))}
    GROUP BY 2
    UNION ALL
    SELECT 'refunded', r.reason, count(*)::integer, sum(rc.charge_micros)::bigint, sum(rc.publisher_reversed_micros)::bigint
    FROM refunded_clicks AS rc
    JOIN refunds AS r ON r.id = rc.refund_id
    JOIN clicks AS c ON c.click_id = rc.click_id
    WHERE true${where(clickConditions('c', owner, range))}
    GROUP BY 2
    ORDER BY 1 DESC, 3 DESC, 2`.execute(db);
  return result.rows.map((row) => ({
    ...row,
    charge_micros: Number(row.charge_micros),
    publisher_micros: Number(row.publisher_micros),
  }));
}

/** What the operators' figures are broken down by. */
export const DIMENSIONS = ['site', 'block', 'reason', 'network', 'day'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface ShareRow {
  /** The site or block id, the reason, the network (CIDR), or the day (YYYY-MM-DD). */
  key: string;
  /** The site of a block (by=block), its domain (by=site, by=block); empty otherwise. */
  site_id: number;
  site_url: string;
  clicks: number;
  refused: number;
  refunded: number;
}

/**
 * Every click of the range with what made it invalid: a refusal's reason, a refund's reason
 * (none for a valid click). Addresses are grouped by their /24 (IPv4) or /48 (IPv6).
 */
function classifiedClicks(range: TimeRange, timeZone: string): RawBuilder<unknown> {
  return sql`
    SELECT c.site_id, c.block_id, c.address, (c.created_at AT TIME ZONE ${timeZone})::date AS day,
      CASE WHEN c.status = 'bot' THEN coalesce(c.invalid_reason, 'bot') END AS refused_reason,
      r.reason AS refund_reason
    FROM clicks AS c
    LEFT JOIN refunded_clicks AS rc ON rc.click_id = c.click_id
    LEFT JOIN refunds AS r ON r.id = rc.refund_id
    WHERE true${where(clickConditions('c', {}, range))}`;
}

const DIMENSION_KEYS: Record<Exclude<Dimension, 'reason'>, RawBuilder<unknown>> = {
  site: sql`k.site_id::text`,
  block: sql`k.block_id::text`,
  network: sql`coalesce(network(set_masklen(k.address, CASE family(k.address) WHEN 4 THEN 24 ELSE 48 END))::text, '')`,
  day: sql`to_char(k.day, 'YYYY-MM-DD')`,
};

/**
 * The clicks of a range, refused and refunded among them, per site, block, network or day (the
 * biggest invalid counts first, days in order), or the invalid ones per reason; at most `limit` rows.
 */
export async function invalidShares(
  db: Db,
  range: TimeRange,
  by: Dimension,
  options: { timeZone: string; limit: number },
): Promise<ShareRow[]> {
  const source = classifiedClicks(range, options.timeZone);
  if (by === 'reason') {
    const result = await sql<ShareRow>`
      WITH k AS (${source})
      SELECT reason AS key, 0 AS site_id, '' AS site_url, sum(clicks)::integer AS clicks,
        sum(refused)::integer AS refused, sum(refunded)::integer AS refunded
      FROM (
        SELECT refused_reason AS reason, 1 AS clicks, 1 AS refused, 0 AS refunded FROM k WHERE refused_reason IS NOT NULL
        UNION ALL
        SELECT refund_reason, 1, 0, 1 FROM k WHERE refund_reason IS NOT NULL
      ) AS reasons
      GROUP BY reason
      ORDER BY 4 DESC, 1
      LIMIT ${options.limit}`.execute(db);
    return result.rows;
  }
  const key = DIMENSION_KEYS[by];
  const site = by === 'site' || by === 'block' ? sql`k.site_id` : sql`0`;
  const order = by === 'day' ? sql`1` : sql`count(k.refused_reason) + count(k.refund_reason) DESC, count(*) DESC, 1`;
  const result = await sql<ShareRow>`
    WITH k AS (${source})
    SELECT ${key} AS key, ${site} AS site_id, coalesce(min(s.url), '') AS site_url, count(*)::integer AS clicks,
      count(k.refused_reason)::integer AS refused, count(k.refund_reason)::integer AS refunded
    FROM k LEFT JOIN sites AS s ON s.id = ${site}
    GROUP BY 1, 2
    ORDER BY ${order}
    LIMIT ${options.limit}`.execute(db);
  return result.rows;
}

/** A site's clicks over the evaluation window, with the invalid ones among them. */
export interface SiteShare {
  site_id: number;
  publisher_id: number;
  clicks: number;
  invalid: number;
}

/**
 * The sites whose invalid share over a window reached the threshold (at least `minClicks` clicks,
 * `sharePercent` % of them refused or refunded), leaving out those with an open review and those
 * whose last review was closed within the window (an operator decided on that evidence already).
 */
export async function sitesOverThreshold(
  db: Db,
  range: Required<TimeRange>,
  rule: { minClicks: number; sharePercent: number },
): Promise<SiteShare[]> {
  const result = await sql<SiteShare>`
    SELECT c.site_id, min(c.publisher_id) AS publisher_id, count(*)::integer AS clicks,
      (count(*) FILTER (WHERE c.status = 'bot') + count(rc.click_id))::integer AS invalid
    FROM clicks AS c
    LEFT JOIN refunded_clicks AS rc ON rc.click_id = c.click_id
    WHERE c.created_at >= ${range.from} AND c.created_at < ${range.to}
      AND NOT EXISTS (
        SELECT 1 FROM site_reviews AS v
        WHERE v.site_id = c.site_id AND (v.status = 'open' OR v.closed_at >= ${range.from})
      )
    GROUP BY c.site_id
    HAVING count(*) >= ${rule.minClicks}
      AND (count(*) FILTER (WHERE c.status = 'bot') + count(rc.click_id)) * 100 >= ${rule.sharePercent} * count(*)
    ORDER BY c.site_id`.execute(db);
  return result.rows;
}

export type SiteReviewRow = Selectable<SiteReviewsTable> & { site_url: string };

export async function insertSiteReview(
  db: Db,
  review: {
    siteId: number;
    publisherId: number;
    flaggedAt: Date;
    range: Required<TimeRange>;
    clicks: number;
    invalid: number;
    evidence: string;
  },
): Promise<number | undefined> {
  const row = await db
    .insertInto('site_reviews')
    .values({
      site_id: review.siteId,
      publisher_id: review.publisherId,
      flagged_at: review.flaggedAt,
      period_from: review.range.from,
      period_to: review.range.to,
      clicks: review.clicks,
      invalid_clicks: review.invalid,
      evidence: review.evidence,
    })
    // Another instance's evaluation flagged the site at the same time: one open review is enough.
    .onConflict((conflict) => conflict.column('site_id').where('status', '=', 'open').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

const reviewColumns = (db: Db) =>
  db.selectFrom('site_reviews as v').innerJoin('sites as s', 's.id', 'v.site_id').selectAll('v').select('s.url as site_url');

export async function listSiteReviews(
  db: Db,
  filter: { status?: 'open' | 'closed' },
  limit: number,
  offset: number,
): Promise<{ rows: SiteReviewRow[]; total: number }> {
  let query = reviewColumns(db);
  let count = db.selectFrom('site_reviews as v').select((eb) => eb.fn.countAll<number>().as('total'));
  if (filter.status === 'open') {
    query = query.where('v.status', '=', 'open');
    count = count.where('v.status', '=', 'open');
  } else if (filter.status === 'closed') {
    query = query.where('v.status', '<>', 'open');
    count = count.where('v.status', '<>', 'open');
  }
  const rows = await query.orderBy('v.flagged_at', 'desc').orderBy('v.id', 'desc').limit(limit).offset(offset).execute();
  const total = Number((await count.executeTakeFirst())?.total ?? 0);
  return { rows, total };
}

/** One review, locked for the caller's transaction when `lock` is set. */
export async function findSiteReview(db: Db, id: number, lock = false): Promise<SiteReviewRow | undefined> {
  let query = reviewColumns(db).where('v.id', '=', id);
  if (lock) query = query.forUpdate('v');
  return query.executeTakeFirst();
}

/** Adds an action to a review; `close` closes it with that status. */
export async function recordReviewAction(
  db: Db,
  id: number,
  action: string,
  close: { status: 'banned' | 'dismissed'; by: number; at: Date } | undefined,
): Promise<void> {
  await db
    .updateTable('site_reviews')
    .set((eb) => ({
      actions: sql<string[]>`array_append(${eb.ref('actions')}, ${action}::text)`,
      ...(close === undefined ? {} : { status: close.status, closed_by: close.by, closed_at: close.at }),
    }))
    .where('id', '=', id)
    .execute();
}

/** Open reviews per leading reason (the reason with most clicks in the evidence), for the metrics. */
export async function openReviewEvidence(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('site_reviews').select('evidence').where('status', '=', 'open').execute();
  return rows.map((row) => row.evidence);
}

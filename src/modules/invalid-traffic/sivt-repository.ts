import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** SQL of the after-the-fact rules: billed, unrefunded clicks of a range that a rule finds invalid. */

export interface ClickRange {
  since: Date;
  until: Date;
}

const notRefunded = sql`NOT EXISTS (SELECT 1 FROM refunded_clicks AS r WHERE r.click_id = c.click_id)`;

/** no_opportunity: clicked sooner than `withinMs` after the teaser was served, and the teaser never counted viewable. */
export async function findNoOpportunityClicks(db: Db, range: ClickRange, withinMs: number, limit: number): Promise<string[]> {
  const result = await sql<{ click_id: string }>`
    SELECT c.click_id FROM clicks AS c
    WHERE c.status = 'billed' AND c.served_at IS NOT NULL
      AND c.created_at >= ${range.since} AND c.created_at < ${range.until}
      AND c.created_at < c.served_at + ${`${withinMs} milliseconds`}::interval
      AND NOT EXISTS (SELECT 1 FROM viewed_impressions AS v WHERE v.token_id = c.click_id)
      AND ${notRefunded}
    ORDER BY c.created_at, c.click_id
    LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => row.click_id);
}

/**
 * repeat_click: billed clicks of one visitor (the day's hash of address and User-Agent) on one
 * advertiser beyond the first `maxClicks` within `windowMs` (counted as the click flood rule
 * counts, refunded clicks included, so a refund does not make room for more).
 */
export async function findRepeatClicks(
  db: Db,
  range: ClickRange,
  rule: { maxClicks: number; windowMs: number },
  limit: number,
): Promise<string[]> {
  const windowStart = new Date(range.since.getTime() - rule.windowMs);
  const window = `${rule.windowMs} milliseconds`;
  const result = await sql<{ click_id: string }>`
    SELECT f.click_id FROM (
      SELECT c.click_id, c.created_at,
        count(*) OVER (
          PARTITION BY c.advertiser_id, c.visitor_hash ORDER BY c.created_at
          RANGE BETWEEN ${window}::interval PRECEDING AND CURRENT ROW
        )
        - count(*) OVER (PARTITION BY c.advertiser_id, c.visitor_hash, c.created_at)
        + row_number() OVER (PARTITION BY c.advertiser_id, c.visitor_hash, c.created_at ORDER BY c.click_id COLLATE "C") AS recent
      FROM clicks AS c
      WHERE c.status = 'billed' AND c.visitor_hash IS NOT NULL
        AND c.created_at >= ${windowStart} AND c.created_at < ${range.until}
    ) AS f
    WHERE f.recent > ${rule.maxClicks} AND f.created_at >= ${range.since}
      AND NOT EXISTS (SELECT 1 FROM refunded_clicks AS r WHERE r.click_id = f.click_id)
    ORDER BY f.created_at, f.click_id
    LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => row.click_id);
}

/** network_mismatch: a link clicked from another country and another network than its teaser was served to. */
export async function findNetworkMismatches(db: Db, range: ClickRange, limit: number): Promise<string[]> {
  const result = await sql<{ click_id: string }>`
    SELECT c.click_id FROM clicks AS c
    WHERE c.status = 'billed'
      AND c.created_at >= ${range.since} AND c.created_at < ${range.until}
      AND c.served_asn IS NOT NULL AND c.asn IS NOT NULL AND c.asn <> c.served_asn
      AND c.country <> '' AND c.click_country IS NOT NULL AND c.click_country <> c.country
      AND ${notRefunded}
    ORDER BY c.created_at, c.click_id
    LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => row.click_id);
}

/** A block's billed clicks and served teasers on a day, and the whole network's. */
export interface DayTraffic {
  blockId: number;
  clicks: number;
  served: number;
}

/** Billed clicks not refunded and served teasers per block on a day (the statistics' rollup). */
export async function blockTrafficOn(db: Db, day: string): Promise<DayTraffic[]> {
  const rows = await db
    .selectFrom('stats_daily')
    .select([
      'block_id',
      (eb) => eb.fn.sum<number>('clicks').as('clicks'),
      (eb) => eb.fn.sum<number>('refunded_clicks').as('refunded'),
      (eb) => eb.fn.sum<number>('served').as('served'),
    ])
    .where('day', '=', day)
    .groupBy('block_id')
    .execute();
  // Clicks already refunded (by another rule) are not evidence any more.
  return rows.map((row) => ({
    blockId: row.block_id,
    clicks: Number(row.clicks) - Number(row.refunded),
    served: Number(row.served),
  }));
}

/** A block's billed, unrefunded clicks of a range, grouped by network (/24 or /48 address, or AS number). */
export interface NetworkGroup {
  blockId: number;
  kind: 'address' | 'asn';
  key: string;
  clicks: number;
  blockClicks: number;
}

/** The largest groups of blocks' clicks in the range, by address network and by AS number. */
export async function clickGroups(db: Db, range: ClickRange, blockIds: readonly number[]): Promise<NetworkGroup[]> {
  if (blockIds.length === 0) return [];
  const result = await sql<{ block_id: number; kind: 'address' | 'asn'; key: string; clicks: string; block_clicks: string }>`
    WITH recent AS (
      SELECT c.block_id, host(c.address) AS address, c.asn FROM clicks AS c
      WHERE c.status = 'billed' AND c.block_id = ANY(${blockIds}::integer[])
        AND c.created_at >= ${range.since} AND c.created_at < ${range.until}
    ), totals AS (SELECT block_id, count(*) AS block_clicks FROM recent GROUP BY block_id)
    SELECT g.block_id, g.kind, g.key, g.clicks, t.block_clicks FROM (
      SELECT block_id, 'address' AS kind, address AS key, count(*) AS clicks FROM recent
        WHERE address IS NOT NULL GROUP BY block_id, address
      UNION ALL
      SELECT block_id, 'asn' AS kind, asn::text AS key, count(*) AS clicks FROM recent
        WHERE asn IS NOT NULL GROUP BY block_id, asn
    ) AS g JOIN totals AS t ON t.block_id = g.block_id
    ORDER BY g.clicks DESC`.execute(db);
  return result.rows.map((row) => ({
    blockId: row.block_id,
    kind: row.kind,
    key: row.key,
    clicks: Number(row.clicks),
    blockClicks: Number(row.block_clicks),
  }));
}

/** The billed, unrefunded clicks of a block in the range from one address network or AS number. */
export async function groupClicks(db: Db, range: ClickRange, group: NetworkGroup, limit: number): Promise<string[]> {
  const match = group.kind === 'address' ? sql`host(c.address) = ${group.key}` : sql`c.asn = ${Number(group.key)}`;
  const result = await sql<{ click_id: string }>`
    SELECT c.click_id FROM clicks AS c
    WHERE c.status = 'billed' AND c.block_id = ${group.blockId}
      AND c.created_at >= ${range.since} AND c.created_at < ${range.until}
      AND ${match} AND ${notRefunded}
    ORDER BY c.created_at, c.click_id
    LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => row.click_id);
}

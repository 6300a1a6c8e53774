import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/**
 * The network's figures of a period, from the per-ad daily rollup (the rows every statistic reads):
 * spend and publisher income net of refunds, served teasers, views, clicks and invalid clicks
 * (refused on arrival plus refunded after billing).
 */
const FIGURES = sql<never>`
  coalesce(sum(s.spend_micros - s.refunded_spend_micros), 0)::bigint AS spend,
  coalesce(sum(s.publisher_income_micros - s.refunded_publisher_income_micros), 0)::bigint AS earnings,
  coalesce(sum(s.served), 0)::bigint AS served,
  coalesce(sum(s.views), 0)::bigint AS views,
  coalesce(sum(s.clicks), 0)::bigint AS clicks,
  coalesce(sum(s.invalid_clicks + s.refunded_clicks), 0)::bigint AS invalid_clicks`;

export interface FigureRow {
  spend: string | number;
  earnings: string | number;
  served: string | number;
  views: string | number;
  clicks: string | number;
  invalid_clicks: string | number;
}

export async function networkTotals(db: Db, from: string, to: string): Promise<FigureRow> {
  const { rows } = await sql<FigureRow>`
    SELECT ${FIGURES} FROM stats_daily s WHERE s.day BETWEEN ${from} AND ${to}`.execute(db);
  const [row] = rows;
  return row ?? { spend: 0, earnings: 0, served: 0, views: 0, clicks: 0, invalid_clicks: 0 };
}

/** The sites that earned most in the period (spend on them, net), with their address and publisher. */
export async function topSites(db: Db, from: string, to: string, limit: number) {
  const { rows } = await sql<FigureRow & { id: number; url: string; account_id: number }>`
    SELECT s.site_id AS id, min(t.url) AS url, min(t.publisher_id) AS account_id, ${FIGURES}
    FROM stats_daily s JOIN sites t ON t.id = s.site_id
    WHERE s.day BETWEEN ${from} AND ${to}
    GROUP BY s.site_id
    ORDER BY spend DESC, clicks DESC, s.site_id
    LIMIT ${limit}`.execute(db);
  return rows;
}

/** The advertisers that spent most in the period, with their name (their login when they have none). */
export async function topAdvertisers(db: Db, from: string, to: string, limit: number) {
  const { rows } = await sql<FigureRow & { id: number; name: string }>`
    SELECT c.advertiser_id AS id, min(coalesce(nullif(trim(a.name), ''), a.username)) AS name, ${FIGURES}
    FROM stats_daily s JOIN campaigns c ON c.id = s.campaign_id JOIN accounts a ON a.id = c.advertiser_id
    WHERE s.day BETWEEN ${from} AND ${to}
    GROUP BY c.advertiser_id
    ORDER BY spend DESC, clicks DESC, c.advertiser_id
    LIMIT ${limit}`.execute(db);
  return rows;
}

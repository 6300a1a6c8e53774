import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { prepared } from '../../../db/prepared.ts';

/** SQL of campaign explanations: the campaign's ads with what decides whether they are in serving at all. */

export interface CampaignAdsRow {
  campaign_active: boolean;
  campaign_archived: boolean;
  campaign_moderation_status: number;
  /** The ad's columns: null on the one row of a campaign without ads. */
  id: number | null;
  title: string | null;
  bid_micros: number | null;
  active: boolean | null;
  moderation_status: number | null;
}

/**
 * The advertiser's campaign (what decides whether it serves) and its ads (deleted ones excluded),
 * by id, in one statement: no rows when the campaign is not the advertiser's. One prepared
 * statement, as it runs on every explanation: its plan costs more than its execution.
 */
export async function findOwnCampaignAds(db: Db, advertiserId: number, campaignId: number): Promise<CampaignAdsRow[]> {
  const result = await prepared(sql<CampaignAdsRow>`
    SELECT c.active AS campaign_active, c.archived AS campaign_archived,
      c.moderation_status AS campaign_moderation_status,
      o.id, o.title, o.bid_micros, o.active, o.moderation_status
    FROM campaigns AS c
    LEFT JOIN offers AS o ON o.campaign_id = c.id AND o.deleted_at IS NULL
    WHERE c.id = ${campaignId} AND c.advertiser_id = ${advertiserId}
    ORDER BY o.id`).execute(db);
  return result.rows;
}

/**
 * Whether the block is one of the publisher's (any site state). Serving reads the blocks it
 * serves from anyway; asking the publisher module instead would tie serving to the account API.
 */
export async function publisherOwnsBlock(db: Db, publisherId: number, blockId: number): Promise<boolean> {
  const row = await db
    .selectFrom('blocks')
    .innerJoin('sites', 'sites.id', 'blocks.site_id')
    .select('blocks.id')
    .where('blocks.id', '=', blockId)
    .where('sites.publisher_id', '=', publisherId)
    .executeTakeFirst();
  return row !== undefined;
}

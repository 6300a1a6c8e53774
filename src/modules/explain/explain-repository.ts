import type { Db } from '../../db/database.ts';

/** SQL of campaign explanations: the campaign's ads with what decides whether they are in serving at all. */

export async function findCampaignAds(db: Db, campaignId: number) {
  return db
    .selectFrom('offers')
    .select(['id', 'title', 'bid_micros', 'active', 'moderation_status'])
    .where('campaign_id', '=', campaignId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}

import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { MODERATION } from '../../moderation/index.ts';

/** SQL of tracking: retargeting audiences, click targets, the seen-set of counted views. */

export async function upsertAudienceMember(db: Db, advertiserId: number, visitorId: string, at: Date): Promise<void> {
  await db
    .insertInto('audience_members')
    .values({ advertiser_id: advertiserId, visitor_id: visitorId, last_seen_at: at })
    .onConflict((conflict) => conflict.columns(['advertiser_id', 'visitor_id']).doUpdateSet({ last_seen_at: at }))
    .execute();
}

export async function isAdvertiser(db: Db, accountId: number): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .where('kind', '=', 'advertiser')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Where an ad's click leads: the URLs moderation approved (the ad's own while it is approved, the
 * kept version while an edit waits), and nowhere when the ad is deleted, was never approved, or
 * moderation rejected it or its campaign.
 */
export async function findOfferTarget(db: Db, offerId: number) {
  return db
    .selectFrom('offers as o')
    .innerJoin('campaigns as c', 'c.id', 'o.campaign_id')
    .leftJoin('offer_approved_versions as v', 'v.offer_id', 'o.id')
    .select((eb) => [eb.fn.coalesce('v.url', 'o.url').as('url'), eb.fn.coalesce('v.url_mobile', 'o.url_mobile').as('url_mobile')])
    .where('o.id', '=', offerId)
    .where('o.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('o.moderation_status', '=', MODERATION.approved), eb('v.offer_id', 'is not', null)]))
    .where('o.moderation_status', '!=', MODERATION.rejected)
    .where('c.moderation_status', '!=', MODERATION.rejected)
    .executeTakeFirst();
}

/**
 * Claims impressions in the seen-set of counted views, all kept until `expiresAt`: returns the ids
 * some earlier flush (of any instance) already claimed, which are not counted again. Those are
 * the rare replays, so the answer is usually empty rather than every id inserted. Ids are
 * inserted in sorted order ("C" collation, as JavaScript sorts ASCII), so two instances claiming
 * overlapping ids wait for each other instead of deadlocking.
 */
export async function claimImpressions(db: Db, ids: readonly string[], expiresAt: Date): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const sorted = [...ids].sort();
  // The ids travel once: a flush holds thousands, and each array parameter is written out as text.
  const { rows } = await sql<{ token_id: string }>`
    WITH ids AS (SELECT unnest(${sorted}::text[]) AS id),
    claimed AS (
      INSERT INTO viewed_impressions (token_id, expires_at)
      SELECT id, ${expiresAt.toISOString()}::timestamptz FROM ids
      ON CONFLICT (token_id) DO NOTHING
      RETURNING token_id
    )
    SELECT id AS token_id FROM ids
    EXCEPT ALL SELECT token_id FROM claimed`.execute(db);
  return new Set(rows.map((row) => row.token_id));
}

/** Forgets counted impressions whose tokens have expired: no beacon can bring them back. */
export async function forgetExpiredImpressions(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('viewed_impressions').where('expires_at', '<', now).execute();
}

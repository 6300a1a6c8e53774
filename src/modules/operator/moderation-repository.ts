import type { Db } from '../../db/database.ts';

/** Moderation decisions as stored: 0 moderation (waiting), 1 approved, 2 rejected. */
export type ModerationStatus = 0 | 1 | 2;

export async function setCampaignModeration(trx: Db, id: number, status: ModerationStatus, now: Date) {
  return trx
    .updateTable('campaigns')
    .set({ moderation_status: status, updated_at: now })
    .where('id', '=', id)
    .returning(['id', 'moderation_status'])
    .executeTakeFirst();
}

/** Deleted ads are gone for everyone, moderators included. */
export async function setOfferModeration(trx: Db, id: number, status: ModerationStatus, now: Date) {
  return trx
    .updateTable('offers')
    .set({ moderation_status: status, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returning(['id', 'moderation_status'])
    .executeTakeFirst();
}

export async function listCampaignsForModeration(db: Db, status: ModerationStatus | undefined, limit: number, offset: number) {
  let query = db.selectFrom('campaigns');
  if (status !== undefined) query = query.where('moderation_status', '=', status);
  const [rows, count] = await Promise.all([
    query
      .select(['id', 'advertiser_id', 'title', 'moderation_status', 'archived'])
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export async function listOffersForModeration(db: Db, status: ModerationStatus | undefined, limit: number, offset: number) {
  let query = db
    .selectFrom('offers')
    .innerJoin('campaigns', 'campaigns.id', 'offers.campaign_id')
    .where('offers.deleted_at', 'is', null);
  if (status !== undefined) query = query.where('offers.moderation_status', '=', status);
  const [rows, count] = await Promise.all([
    query
      .select(['offers.id', 'offers.campaign_id', 'campaigns.advertiser_id', 'offers.title', 'offers.moderation_status'])
      .orderBy('offers.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

import type { Db } from '../../../db/database.ts';
import { notFound } from '../../../http/errors.ts';

/**
 * The campaign `id` of `advertiserId`, or 404: another advertiser's campaign does not exist for
 * the caller. Only the columns the coefficient and category endpoints need.
 */
export async function requireOwnCampaign(db: Db, advertiserId: number, id: number) {
  const campaign = await db
    .selectFrom('campaigns')
    .select(['id', 'advertiser_id', 'category_id'])
    .where('id', '=', id)
    .where('advertiser_id', '=', advertiserId)
    .executeTakeFirst();
  if (campaign === undefined) throw notFound('Campaign');
  return campaign;
}

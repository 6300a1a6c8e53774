import type { Db } from '../../../db/database.ts';
import type { ListWithTotal } from '../../../db/list.ts';
import { type CategoryRow, listCategories } from '../../categories/index.ts';
import { requireCampaign } from '../campaigns/campaign-service.ts';

/** The subcategories an ad of this campaign may use: the children of the campaign's category. */
export async function subCategoriesOfCampaign(
  db: Db,
  advertiserId: number,
  campaignId: number,
  limit: number,
  offset: number,
): Promise<ListWithTotal<CategoryRow>> {
  const campaign = await requireCampaign(db, advertiserId, campaignId);
  if (campaign.category_id === null) return { rows: [], total: 0 };
  return listCategories(db, { parentId: campaign.category_id }, limit, offset);
}

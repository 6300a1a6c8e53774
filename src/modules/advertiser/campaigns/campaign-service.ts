import type { Db } from '../../../db/database.ts';
import { invalidField, notFound } from '../../../http/errors.ts';
import type { Period } from '../../statistics/period.ts';
import { type TargetId, totalsByCampaign, ZERO_TOTALS } from '../statistics/advertiser-stats-repository.ts';
import {
  type CampaignListFilter,
  findCampaign,
  insertCampaign,
  isRootCategory,
  listCampaigns,
  type NewCampaign,
  updateCampaignFlags,
} from './campaign-repository.ts';
import { type Campaign, type CampaignRecord, toCampaign } from './campaign-schema.ts';

export interface CampaignQuery extends CampaignListFilter {
  period: Period;
  targetId: TargetId;
  limit: number;
  offset: number;
}

/**
 * One page of an advertiser's campaigns with their statistics for the period (lifetime without
 * dates), and the number that match. The statistics are summed for the page's campaigns only.
 * Other modules embed campaigns with this (e.g. `expand=campaigns` on an advertiser's client).
 */
export async function listCampaignsWithStats(db: Db, query: CampaignQuery): Promise<{ campaigns: Campaign[]; total: number }> {
  const { rows, total } = await listCampaigns(db, query, query.limit, query.offset);
  const totals = await totalsByCampaign(db, {
    campaignIds: rows.map((row) => row.id),
    period: query.period,
    targetId: query.targetId,
  });
  return { campaigns: rows.map((row) => toCampaign(row, totals.get(row.id) ?? ZERO_TOTALS)), total };
}

/** The advertiser's campaign row; 404 when it does not exist or belongs to someone else. */
export async function requireCampaign(db: Db, advertiserId: number, id: number): Promise<CampaignRecord> {
  const row = await findCampaign(db, advertiserId, id);
  if (row === undefined) throw notFound('Campaign');
  return row;
}

/** The advertiser's campaign with its statistics for the period. */
export async function getCampaignWithStats(
  db: Db,
  advertiserId: number,
  id: number,
  period: Period,
  targetId: TargetId,
): Promise<{ row: CampaignRecord; campaign: Campaign }> {
  const row = await requireCampaign(db, advertiserId, id);
  const totals = await totalsByCampaign(db, { campaignIds: [id], period, targetId });
  return { row, campaign: toCampaign(row, totals.get(id) ?? ZERO_TOTALS) };
}

/** Creates a campaign awaiting moderation (status 0). */
export async function createCampaign(db: Db, campaign: NewCampaign): Promise<number> {
  return db.transaction().execute(async (trx) => {
    if (!(await isRootCategory(trx, campaign.categoryId))) {
      throw invalidField('category_id', 'Must be the id of a root category (GET /advertiser/categories).');
    }
    return insertCampaign(trx, campaign);
  });
}

/** Switches a campaign on/off and archives or restores it. */
export async function changeCampaign(
  db: Db,
  advertiserId: number,
  id: number,
  flags: { active?: boolean; archived?: boolean },
  now: Date,
): Promise<void> {
  if (flags.active === undefined && flags.archived === undefined) {
    throw invalidField('active', 'Give active and/or archived.');
  }
  await db.transaction().execute(async (trx) => {
    await requireCampaign(trx, advertiserId, id);
    await updateCampaignFlags(trx, id, flags, now);
  });
}

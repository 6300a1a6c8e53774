import type { Db } from '../../../db/database.ts';

export interface SiteCoefficientRow {
  campaign_id: number;
  site_id: number;
  block_id: number;
  coef: number;
}

export interface DeviceCoefficientRow {
  campaign_id: number;
  device: number;
  coef: number;
}

export async function upsertSiteCoefficient(trx: Db, row: SiteCoefficientRow, now: Date): Promise<SiteCoefficientRow> {
  return trx
    .insertInto('site_coefficients')
    .values({ ...row, updated_at: now })
    .onConflict((conflict) =>
      conflict.columns(['campaign_id', 'site_id', 'block_id']).doUpdateSet({ coef: row.coef, updated_at: now }),
    )
    .returning(['campaign_id', 'site_id', 'block_id', 'coef'])
    .executeTakeFirstOrThrow();
}

export async function upsertDeviceCoefficient(trx: Db, row: DeviceCoefficientRow, now: Date): Promise<DeviceCoefficientRow> {
  return trx
    .insertInto('device_coefficients')
    .values({ ...row, updated_at: now })
    .onConflict((conflict) => conflict.columns(['campaign_id', 'device']).doUpdateSet({ coef: row.coef, updated_at: now }))
    .returning(['campaign_id', 'device', 'coef'])
    .executeTakeFirstOrThrow();
}

/** A campaign's site and block coefficients, optionally of one site, by site then block. */
export async function listSiteCoefficients(db: Db, campaignId: number, siteId?: number): Promise<SiteCoefficientRow[]> {
  let query = db
    .selectFrom('site_coefficients')
    .select(['campaign_id', 'site_id', 'block_id', 'coef'])
    .where('campaign_id', '=', campaignId);
  if (siteId !== undefined) query = query.where('site_id', '=', siteId);
  return query.orderBy('site_id').orderBy('block_id').execute();
}

export async function listDeviceCoefficients(db: Db, campaignId: number): Promise<DeviceCoefficientRow[]> {
  return db
    .selectFrom('device_coefficients')
    .select(['campaign_id', 'device', 'coef'])
    .where('campaign_id', '=', campaignId)
    .orderBy('device')
    .execute();
}

/** Copies a campaign's site, block and device coefficients to another campaign (a duplicate). */
export async function copyCoefficients(trx: Db, fromCampaignId: number, toCampaignId: number, now: Date): Promise<void> {
  const sites = await listSiteCoefficients(trx, fromCampaignId);
  for (const row of sites) await upsertSiteCoefficient(trx, { ...row, campaign_id: toCampaignId }, now);
  const devices = await listDeviceCoefficients(trx, fromCampaignId);
  for (const row of devices) await upsertDeviceCoefficient(trx, { ...row, campaign_id: toCampaignId }, now);
}

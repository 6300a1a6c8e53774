import type { Db } from '../../../db/database.ts';
import type { Period } from '../../statistics/period.ts';
import { type TargetId, type Totals, totalsOf } from '../../statistics/rates.ts';
import { SUMMARY_SHAPES } from '../../statistics/summaries.ts';
import { sumSummaries } from '../../statistics/summary-repository.ts';

/** Which conversions count as `orders`: 0 all, 1 purchase, 2 registration, 3 intermediate goal. */
export type { TargetId };

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

export async function siteExists(db: Db, siteId: number): Promise<boolean> {
  return (await db.selectFrom('sites').select('id').where('id', '=', siteId).executeTakeFirst()) !== undefined;
}

export async function blockBelongsToSite(db: Db, siteId: number, blockId: number): Promise<boolean> {
  const row = await db
    .selectFrom('blocks')
    .select('id')
    .where('id', '=', blockId)
    .where('site_id', '=', siteId)
    .executeTakeFirst();
  return row !== undefined;
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

type TrafficKey = 'site_id' | 'block_id' | 'device';

const TRAFFIC_SHAPES = {
  site: { shape: SUMMARY_SHAPES.campaignSite, keys: ['site_id'] },
  block: { shape: SUMMARY_SHAPES.campaignPlace, keys: ['site_id', 'block_id'] },
  device: { shape: SUMMARY_SHAPES.campaignDevice, keys: ['device'] },
} as const;

/**
 * A campaign's traffic in a period from the statistics summaries: per site (campaign site rows),
 * per site and block (campaign place rows, optionally only of `places`) or per device (campaign
 * device rows).
 */
async function trafficBy<K extends TrafficKey>(
  db: Db,
  campaignId: number,
  period: Period,
  targetId: TargetId,
  by: keyof typeof TRAFFIC_SHAPES,
  places?: readonly { siteId: number; blockId: number }[],
): Promise<(Record<K, number> & Totals)[]> {
  const { shape, keys } = TRAFFIC_SHAPES[by];
  const rows = await sumSummaries(db, {
    shape,
    keyA: [campaignId],
    keyB: places?.map((place) => place.siteId),
    keyC: places?.map((place) => place.blockId),
    period,
    grain: 'total',
    groupBy: keys.length === 2 ? ['key_b', 'key_c'] : ['key_b'],
  });
  const wanted = places === undefined ? undefined : new Set(places.map((place) => `${place.siteId}s${place.blockId}`));
  return rows
    .filter((row) => wanted === undefined || wanted.has(`${row.key_b}s${row.key_c}`))
    .map((row) => {
      const keyed: Partial<Record<TrafficKey, number>> = {};
      keyed[keys[0]] = row.key_b;
      if (keys.length === 2) keyed.block_id = row.key_c;
      return { ...keyed, ...totalsOf(row, targetId) } as Record<K, number> & Totals;
    });
}

export const trafficBySite = (db: Db, campaignId: number, period: Period, targetId: TargetId) =>
  trafficBy<'site_id'>(db, campaignId, period, targetId, 'site');

/** Per block; with `places`, only those blocks (a few coefficients rather than every block). */
export const trafficByBlock = (
  db: Db,
  campaignId: number,
  period: Period,
  targetId: TargetId,
  places?: readonly { siteId: number; blockId: number }[],
) => trafficBy<'site_id' | 'block_id'>(db, campaignId, period, targetId, 'block', places);

export const trafficByDevice = (db: Db, campaignId: number, period: Period, targetId: TargetId) =>
  trafficBy<'device'>(db, campaignId, period, targetId, 'device');

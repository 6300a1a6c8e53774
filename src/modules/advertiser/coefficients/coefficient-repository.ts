import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { DatabaseSchema } from '../../../db/schema.ts';
import type { Period } from '../../statistics/period.ts';
import type { Totals } from '../../statistics/rates.ts';

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

/** Which conversions count as `orders`: 0 all, 1 purchase, 2 registration, 3 intermediate goal. */
export type TargetId = 0 | 1 | 2 | 3;

function ordersSum(targetId: TargetId) {
  switch (targetId) {
    case 1:
      return sql<number>`sum(conversions_purchase)`;
    case 2:
      return sql<number>`sum(conversions_registration)`;
    case 3:
      return sql<number>`sum(conversions_intermediate)`;
    default:
      return sql<number>`sum(conversions_purchase + conversions_registration + conversions_intermediate)`;
  }
}

type TrafficKey = 'site_id' | 'block_id' | 'device';

/** A campaign's traffic from the rollup in a period, summed per the given key columns. */
async function trafficBy<K extends TrafficKey>(
  db: Db,
  campaignId: number,
  period: Period,
  targetId: TargetId,
  keys: readonly K[],
): Promise<(Record<K, number> & Totals)[]> {
  let query = db.selectFrom('stats_daily').where('campaign_id', '=', campaignId);
  if (period.from !== undefined) query = query.where('day', '>=', period.from);
  if (period.to !== undefined) query = query.where('day', '<=', period.to);
  const rows = await query
    .select((eb: ExpressionBuilder<DatabaseSchema, 'stats_daily'>) => [
      ...keys.map((key) => eb.ref(key).as(key)),
      eb.fn.sum<number>('views').as('views'),
      eb.fn.sum<number>('clicks').as('clicks'),
      eb.fn.sum<number>('spend_micros').as('spend_micros'),
      ordersSum(targetId).as('orders'),
    ])
    .groupBy([...keys])
    .execute();
  return rows.map((row) => {
    const record = row as Record<string, unknown>;
    const result: Record<string, number> = {
      views: Number(record.views ?? 0),
      clicks: Number(record.clicks ?? 0),
      spendMicros: Number(record.spend_micros ?? 0),
      orders: Number(record.orders ?? 0),
    };
    for (const key of keys) result[key] = Number(record[key]);
    return result as Record<K, number> & Totals;
  });
}

export const trafficByBlock = (db: Db, campaignId: number, period: Period, targetId: TargetId) =>
  trafficBy(db, campaignId, period, targetId, ['site_id', 'block_id'] as const);

export const trafficByDevice = (db: Db, campaignId: number, period: Period, targetId: TargetId) =>
  trafficBy(db, campaignId, period, targetId, ['device'] as const);

import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { notFound } from '../../../errors.ts';
import { blockBelongsToSite, siteExists } from '../../publisher/index.ts';
import type { Period } from '../../statistics/index.ts';
import {
  advertiserFigures,
  DEVICES,
  type DeviceId,
  type TargetId,
  type Totals,
  trafficByBlock,
  trafficByDevice,
  trafficBySite,
  ZERO_TOTALS,
} from '../../statistics/index.ts';
import { requireCampaign } from '../campaigns/campaign-service.ts';
import {
  copyCoefficients,
  type DeviceCoefficientRow,
  listDeviceCoefficients,
  listSiteCoefficients,
  type SiteCoefficientRow,
  upsertDeviceCoefficient,
  upsertSiteCoefficient,
} from './coefficient-repository.ts';
import type { Coefficient, DeviceStatistics, SiteStatistics } from './coefficient-schema.ts';
import { DEVICE_NAMES, formatSiteTarget, type SiteTarget } from './targets.ts';

/** The coefficient of traffic nothing has been set for. */
export const DEFAULT_COEF = 1;

const NO_TRAFFIC: Totals = ZERO_TOTALS;

/** Coefficients are stored as numeric(6,4): four fraction digits. */
const roundCoef = (coef: number): number => Math.round(coef * 10_000) / 10_000;

export const siteCoefficient = (row: SiteCoefficientRow): Coefficient => ({
  coef: row.coef,
  campaignId: row.campaign_id,
  siteId: row.site_id,
  deviceId: 0,
  informerId: row.block_id,
});

export const deviceCoefficient = (row: DeviceCoefficientRow): Coefficient => ({
  coef: row.coef,
  campaignId: row.campaign_id,
  siteId: 0,
  deviceId: row.device,
  informerId: 0,
});

/** The site exists, and the block (when one is named) is a block of that site; otherwise 404. */
async function requireTarget(db: Db, target: SiteTarget): Promise<void> {
  if (!(await siteExists(db, target.siteId))) throw notFound('Site');
  if (target.blockId !== 0 && !(await blockBelongsToSite(db, target.siteId, target.blockId))) throw notFound('Block');
}

/** All site and block coefficients set for a campaign. */
export async function campaignSiteCoefficients(db: Db, advertiserId: number, campaignId: number): Promise<Coefficient[]> {
  await requireCampaign(db, advertiserId, campaignId);
  return (await listSiteCoefficients(db, campaignId)).map(siteCoefficient);
}

/**
 * The coefficients in force for one site: for `123`, the site's own (1 when unset) followed by
 * those set for its blocks; for `123s45`, that block's (1 when unset).
 */
export async function targetSiteCoefficients(
  db: Db,
  advertiserId: number,
  campaignId: number,
  target: SiteTarget,
): Promise<Coefficient[]> {
  await requireCampaign(db, advertiserId, campaignId);
  await requireTarget(db, target);
  const rows = await listSiteCoefficients(db, campaignId, target.siteId);
  const own = rows.find((row) => row.block_id === target.blockId) ?? {
    campaign_id: campaignId,
    site_id: target.siteId,
    block_id: target.blockId,
    coef: DEFAULT_COEF,
  };
  const blocks = target.blockId === 0 ? rows.filter((row) => row.block_id !== 0) : [];
  return [own, ...blocks].map(siteCoefficient);
}

export async function setSiteCoefficient(
  db: Db,
  change: { advertiserId: number; campaignId: number; target: SiteTarget; coef: number; now: Date },
): Promise<Coefficient> {
  return inTransaction(db, async (trx) => {
    await requireCampaign(trx, change.advertiserId, change.campaignId);
    await requireTarget(trx, change.target);
    const row = await upsertSiteCoefficient(
      trx,
      {
        campaign_id: change.campaignId,
        site_id: change.target.siteId,
        block_id: change.target.blockId,
        coef: roundCoef(change.coef),
      },
      change.now,
    );
    return siteCoefficient(row);
  });
}

/** Copies a campaign's coefficients to its duplicate, in the caller's transaction. */
export async function copyCampaignCoefficients(trx: Db, fromCampaignId: number, toCampaignId: number, now: Date): Promise<void> {
  await copyCoefficients(trx, fromCampaignId, toCampaignId, now);
}

export async function setDeviceCoefficient(
  db: Db,
  change: { advertiserId: number; campaignId: number; device: DeviceId; coef: number; now: Date },
): Promise<Coefficient> {
  return inTransaction(db, async (trx) => {
    await requireCampaign(trx, change.advertiserId, change.campaignId);
    const row = await upsertDeviceCoefficient(
      trx,
      { campaign_id: change.campaignId, device: change.device, coef: roundCoef(change.coef) },
      change.now,
    );
    return deviceCoefficient(row);
  });
}

/** A row of a campaign's site statistics before its figures are derived: which target, its traffic, its coefficient. */
export interface SiteTraffic {
  /** The site id, or `123s45` for a block of it. */
  site_id: string;
  totals: Totals;
  coef: number;
}

/**
 * Site statistics of a campaign: one row per site that had traffic in the period or has a
 * coefficient (its whole-site totals and coefficient), each followed by one row per block of it
 * that has its own coefficient (`123s45`, that block's totals). Ordered by site, then block.
 * The figures of a row come from siteFigures: a page of the list derives only its own rows'.
 */
export async function siteStatistics(
  db: Db,
  query: { advertiserId: number; campaignId: number; period: Period; targetId: TargetId },
): Promise<SiteTraffic[]> {
  await requireCampaign(db, query.advertiserId, query.campaignId);
  // Sites from the campaign site summaries; blocks only where a block has its own coefficient.
  const coefficients = await listSiteCoefficients(db, query.campaignId);
  const ownBlocks = coefficients
    .filter((row) => row.block_id !== 0)
    .map((row) => ({ siteId: row.site_id, blockId: row.block_id }));
  const [sites, blocks] = await Promise.all([
    trafficBySite(db, query.campaignId, query.period, query.targetId),
    ownBlocks.length === 0 ? [] : trafficByBlock(db, query.campaignId, query.period, query.targetId, ownBlocks),
  ]);
  const siteTotals = new Map<number, Totals>(sites.map(({ site_id, ...totals }) => [site_id, totals]));
  const blockTotals = new Map(blocks.map((row) => [`${row.site_id}s${row.block_id}`, row]));
  // A campaign may have coefficients on thousands of sites and blocks: group them once by site.
  const coefficientsBySite = new Map<number, typeof coefficients>();
  for (const row of coefficients) {
    const ofSite = coefficientsBySite.get(row.site_id);
    if (ofSite === undefined) coefficientsBySite.set(row.site_id, [row]);
    else ofSite.push(row);
  }
  const siteIds = [...new Set([...siteTotals.keys(), ...coefficientsBySite.keys()])].sort((a, b) => a - b);
  const rows: SiteTraffic[] = [];
  for (const siteId of siteIds) {
    const ofSite = coefficientsBySite.get(siteId) ?? [];
    const own = ofSite.find((row) => row.block_id === 0);
    rows.push({ site_id: String(siteId), totals: siteTotals.get(siteId) ?? NO_TRAFFIC, coef: own?.coef ?? DEFAULT_COEF });
    for (const block of ofSite.filter((row) => row.block_id !== 0)) {
      const key = formatSiteTarget({ siteId, blockId: block.block_id });
      rows.push({ site_id: key, totals: blockTotals.get(key) ?? NO_TRAFFIC, coef: block.coef });
    }
  }
  return rows;
}

/** A site statistics row as the API answers it: the target, its figures over the period, its coefficient. */
export const siteFigures = (row: SiteTraffic): SiteStatistics => ({
  site_id: row.site_id,
  ...advertiserFigures(row.totals),
  coef: row.coef,
});

/** Device statistics of a campaign: always desktop, mobile and tablet, zeros where there was no traffic. */
export async function deviceStatistics(
  db: Db,
  query: { advertiserId: number; campaignId: number; period: Period; targetId: TargetId },
): Promise<DeviceStatistics[]> {
  await requireCampaign(db, query.advertiserId, query.campaignId);
  const [coefficients, traffic] = await Promise.all([
    listDeviceCoefficients(db, query.campaignId),
    trafficByDevice(db, query.campaignId, query.period, query.targetId),
  ]);
  return DEVICE_NAMES.map((device) => {
    const id = DEVICES[device];
    return {
      device,
      ...advertiserFigures(traffic.find((row) => row.device === id) ?? NO_TRAFFIC),
      coef: coefficients.find((row) => row.device === id)?.coef ?? DEFAULT_COEF,
    };
  });
}

/** One site, block or device type of a campaign: its traffic in a period and its coefficient in force. */
export interface CoefficientTraffic {
  siteId: number;
  blockId: number;
  device: number;
  totals: Totals;
  coef: number;
}

/**
 * A campaign's traffic in a period per site (`blockId` 0), per block, or per device type, with
 * the coefficient each has now (1 when unset); only what had traffic. For optimisation rules,
 * which read it inside the transaction that then changes the coefficients.
 */
export async function trafficWithCoefficients(
  db: Db,
  campaignId: number,
  period: Period,
  scope: 'site' | 'block' | 'device',
): Promise<CoefficientTraffic[]> {
  if (scope === 'device') {
    const [coefficients, traffic] = await Promise.all([
      listDeviceCoefficients(db, campaignId),
      trafficByDevice(db, campaignId, period, 0),
    ]);
    return traffic.map(({ device, ...totals }) => ({
      siteId: 0,
      blockId: 0,
      device,
      totals,
      coef: coefficients.find((row) => row.device === device)?.coef ?? DEFAULT_COEF,
    }));
  }
  const coefficients = await listSiteCoefficients(db, campaignId);
  const coefOf = (siteId: number, blockId: number) =>
    coefficients.find((row) => row.site_id === siteId && row.block_id === blockId)?.coef ?? DEFAULT_COEF;
  if (scope === 'block') {
    const blocks = await trafficByBlock(db, campaignId, period, 0);
    return blocks
      .filter((row) => row.block_id !== 0)
      .map(({ site_id, block_id, ...totals }) => ({
        siteId: site_id,
        blockId: block_id,
        device: 0,
        totals,
        coef: coefOf(site_id, block_id),
      }));
  }
  const sites = await trafficBySite(db, campaignId, period, 0);
  return sites.map(({ site_id, ...totals }) => ({ siteId: site_id, blockId: 0, device: 0, totals, coef: coefOf(site_id, 0) }));
}

/** Sets a site or block coefficient inside the caller's transaction (the campaign is the caller's to check). */
export async function writeSiteCoefficient(
  trx: Db,
  change: { campaignId: number; target: SiteTarget; coef: number; now: Date },
): Promise<void> {
  await upsertSiteCoefficient(
    trx,
    {
      campaign_id: change.campaignId,
      site_id: change.target.siteId,
      block_id: change.target.blockId,
      coef: roundCoef(change.coef),
    },
    change.now,
  );
}

/** Sets a device coefficient inside the caller's transaction (the campaign is the caller's to check). */
export async function writeDeviceCoefficient(
  trx: Db,
  change: { campaignId: number; device: DeviceId; coef: number; now: Date },
): Promise<void> {
  await upsertDeviceCoefficient(
    trx,
    { campaign_id: change.campaignId, device: change.device, coef: roundCoef(change.coef) },
    change.now,
  );
}

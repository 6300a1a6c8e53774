import type { Db } from '../../../db/database.ts';
import { invalidField, notFound } from '../../../http/errors.ts';
import type { Period } from '../../statistics/period.ts';
import { countBlocksBySite, listBlocksOfSite } from '../blocks/block-repository.ts';
import { type Block, toBlock } from '../blocks/block-schema.ts';
import { publisherFigures, ZERO_TOTALS } from '../statistics/figures.ts';
import { totalsBySite } from '../statistics/statistics-repository.ts';
import { findOwnSite, findSiteByUrl, insertSite, siteCategoryExists, updateSiteStatus } from './site-repository.ts';
import { type SiteRow, siteStatusName } from './site-schema.ts';
import { normalizeSiteUrl } from './site-url.ts';

/**
 * Website objects for site rows: the stored fields as the spec types them, the number of blocks,
 * and the publisher's statistics over `period` from the rollup.
 */
export async function presentSites(db: Db, rows: readonly SiteRow[], period: Period) {
  const ids = rows.map((row) => row.id);
  const [blockCounts, totals] = await Promise.all([countBlocksBySite(db, ids), totalsBySite(db, ids, period)]);
  return rows.map((row) => ({
    id: row.id,
    status: siteStatusName(row.status),
    url: row.url,
    category_id: row.category_id === null ? '' : String(row.category_id),
    monthly_uniq_users: String(row.monthly_uniq_users),
    blocks_count: blockCounts.get(row.id) ?? 0,
    ...publisherFigures(totals.get(row.id) ?? ZERO_TOTALS),
  }));
}

export async function presentSite(db: Db, row: SiteRow, period: Period) {
  const [website] = await presentSites(db, [row], period);
  if (website === undefined) throw new Error('presentSites lost a row');
  return website;
}

export async function getOwnSite(db: Db, publisherId: number, siteId: number): Promise<SiteRow> {
  const site = await findOwnSite(db, publisherId, siteId);
  if (site === undefined) throw notFound('Site');
  return site;
}

export async function blocksOfSite(db: Db, siteId: number, baseUrl: string): Promise<Block[]> {
  return (await listBlocksOfSite(db, siteId)).map((row) => toBlock(row, baseUrl));
}

export interface NewSiteInput {
  url: string;
  categoryId: number;
  monthlyUniqUsers: number;
}

const UNIQUE_VIOLATION = '23505';
const duplicateUrl = () => invalidField('url', 'You have already added a site with this address.');

/** Registers a site for moderation (status 0). The same address twice for one publisher is a 422. */
export async function createSite(db: Db, publisherId: number, input: NewSiteInput, now: Date): Promise<SiteRow> {
  const url = normalizeSiteUrl(input.url);
  if (url === undefined) throw invalidField('url', 'Must be an absolute http or https address with a host name.');
  try {
    return await db.transaction().execute(async (trx) => {
      if (!(await siteCategoryExists(trx, input.categoryId))) throw invalidField('category_id', 'No such site category.');
      if ((await findSiteByUrl(trx, publisherId, url)) !== undefined) throw duplicateUrl();
      return insertSite(trx, { publisherId, url, categoryId: input.categoryId, monthlyUniqUsers: input.monthlyUniqUsers, now });
    });
  } catch (error) {
    // Two requests racing with the same address both pass the check above; the unique index
    // (migration 0350) lets one insert through and the other gets the same 422.
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw duplicateUrl();
    throw error;
  }
}

/** The operator's moderation decision: any status 0-3 may follow any other. */
export async function moderateSite(db: Db, siteId: number, status: number): Promise<SiteRow> {
  const updated = await updateSiteStatus(db, siteId, status);
  if (updated === undefined) throw notFound('Site');
  return updated;
}

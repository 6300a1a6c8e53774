import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { type FieldError, invalidField, notFound, validationFailed } from '../../../errors.ts';
import { isId } from '../../../shared/ids.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import { unknownCategoryIds } from '../../categories/index.ts';
import { lastRejections, ownerNames } from '../../moderation/index.ts';
import type { Period } from '../../statistics/index.ts';
import { publisherFigures, totalsBySite, ZERO_PUBLISHER_TOTALS } from '../../statistics/index.ts';
import { type Block, toBlock } from '../blocks/block-schema.ts';
import { countBlocksBySite, listBlocksOfSite } from '../blocks/index.ts';
import {
  findOwnSite,
  findSiteByUrl,
  insertSite,
  siteCategoryExists,
  sitesOfSameHost,
  updateRefusedCategories,
  updateSiteDomains,
} from './site-repository.ts';
import { type SiteRow, siteStatusName } from './site-schema.ts';
import { normalizeSiteUrl } from './site-url.ts';

/**
 * Website objects for site rows: the stored fields as the spec types them, the number of blocks
 * (counted here unless the rows come from listSites with theirs), and the publisher's statistics
 * over `period` from the rollup.
 */
export async function presentSites(db: Db, rows: readonly (SiteRow & { blocks_count?: number })[], period: Period) {
  const ids = rows.map((row) => row.id);
  const counted = rows.every((row) => row.blocks_count !== undefined);
  const [blockCounts, totals] = await Promise.all([
    counted ? undefined : countBlocksBySite(db, ids),
    totalsBySite(db, ids, period),
  ]);
  return rows.map((row) => ({
    id: row.id,
    status: siteStatusName(row.status),
    url: row.url,
    category_id: row.category_id === null ? '' : String(row.category_id),
    monthly_uniq_users: String(row.monthly_uniq_users),
    blocks_count: row.blocks_count ?? blockCounts?.get(row.id) ?? 0,
    ...(row.refused_categories.length > 0 ? { refusedCategories: row.refused_categories } : {}),
    ...(row.domains.length > 0 ? { domains: row.domains } : {}),
    ...(row.moderation_reason === null ? {} : { moderationReason: row.moderation_reason }),
    ...publisherFigures(totals.get(row.id) ?? ZERO_PUBLISHER_TOTALS),
  }));
}

export async function presentSite(db: Db, row: SiteRow, period: Period) {
  const [website] = await presentSites(db, [row], period);
  if (website === undefined) throw new Error('presentSites lost a row');
  return website;
}

/** A site's whole life: the period of the operators' site lists and of a moderation decision's answer. */
export const LIFETIME: Period = { from: undefined, to: undefined };

/**
 * Sites as the operator sees them (lifetime statistics): each with its publisher's name, other
 * publishers' sites on the same host, and its latest ban, which the moderation queue shows.
 */
export async function presentAdminSites(db: Db, rows: readonly SiteRow[]) {
  const ids = rows.map((row) => row.id);
  const [websites, names, sameHost, rejections] = await Promise.all([
    presentSites(db, rows, LIFETIME),
    ownerNames(
      db,
      rows.map((row) => row.publisher_id),
    ),
    sitesOfSameHost(db, ids),
    lastRejections(db, 'site', ids),
  ]);
  return websites.map((website, index) => {
    const userId = rows[index]?.publisher_id ?? 0;
    const siteId = rows[index]?.id ?? 0;
    const rejection = rejections.get(siteId);
    return {
      ...website,
      userId,
      userName: names.get(userId) ?? '',
      sameHostSites: sameHost.get(siteId) ?? [],
      ...(rejection === undefined ? {} : { lastRejection: rejection }),
    };
  });
}

export async function getOwnSite(db: Db, publisherId: number, siteId: number): Promise<SiteRow> {
  const site = await findOwnSite(db, publisherId, siteId);
  if (site === undefined) throw notFound('Site');
  return site;
}

export async function blocksOfSite(db: Db, siteId: number, baseUrl: string): Promise<Block[]> {
  return (await listBlocksOfSite(db, siteId)).map((row) => toBlock(row, baseUrl));
}

/**
 * Changes a site's brand safety and domains, each when given. The product categories it refuses:
 * ads of campaigns filed under one, or ads filed under one as their sub-category, do not serve on
 * the site; 422 naming `refusedCategories` when one is not a product category. Its extra domains:
 * its blocks serve there too (docs/invalid-traffic.md); 422 naming `domains` for one that is not a
 * domain name. 404 when not the publisher's site.
 */
export async function changeSite(
  db: Db,
  publisherId: number,
  siteId: number,
  change: { refusedCategories?: number[]; domains?: string[] },
): Promise<SiteRow> {
  const domains = change.domains === undefined ? undefined : siteDomains(change.domains);
  return inTransaction(db, async (trx) => {
    let site = await getOwnSite(trx, publisherId, siteId);
    if (change.refusedCategories !== undefined) {
      const unique = [...new Set(change.refusedCategories)].sort((a, b) => a - b);
      const unknown = await unknownCategoryIds(trx, unique);
      if (unknown.length > 0) {
        throw invalidField('refusedCategories', `Not product categories (GET /advertiser/categories): ${unknown.join(', ')}.`);
      }
      site = await updateRefusedCategories(trx, siteId, unique);
    }
    if (domains !== undefined) site = await updateSiteDomains(trx, siteId, domains);
    return site;
  });
}

/** A host name of at least two labels: letters, digits and inner hyphens (IDN in their xn-- form). */
const DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/**
 * A site's extra domains as stored: lower case, without a leading `www.` (its subdomains are the
 * site's anyway), each once, in order; 422 naming `domains` for one that is not a domain name.
 */
function siteDomains(domains: readonly string[]): string[] {
  const stored: string[] = [];
  for (const domain of domains) {
    const host = domain
      .trim()
      .toLowerCase()
      .replace(/\.$/, '')
      .replace(/^www\./, '');
    if (!DOMAIN_PATTERN.test(host)) throw invalidField('domains', `Not a domain name: ${domain}.`);
    if (!stored.includes(host)) stored.push(host);
  }
  return stored;
}

export interface NewSiteInput {
  url: string;
  categoryId: number;
  monthlyUniqUsers: number;
}

/**
 * Every rule of a new site's fields beyond its schema. Written for input its schema may have
 * refused: a field that is absent or ill-typed is left to the schema.
 */
async function checkSite(
  db: Db,
  publisherId: number,
  input: Unchecked<NewSiteInput>,
): Promise<{ problems: FieldError[]; url?: string }> {
  const problems: FieldError[] = [];
  const url = typeof input.url === 'string' ? normalizeSiteUrl(input.url) : undefined;
  if (typeof input.url === 'string' && url === undefined) {
    problems.push({ field: 'url', message: 'Must be an absolute http or https address with a host name.' });
  }
  if (isId(input.categoryId) && !(await siteCategoryExists(db, input.categoryId))) {
    problems.push({ field: 'category_id', message: 'No such site category.' });
  }
  if (url !== undefined && (await findSiteByUrl(db, publisherId, url)) !== undefined) {
    problems.push({ field: 'url', message: 'You have already added a site with this address.' });
  }
  return { problems, url };
}

/** The 422 entries of a new site's fields by the rules of its service (the route's `fieldRules`). */
export async function siteFieldErrors(db: Db, publisherId: number, input: Unchecked<NewSiteInput>): Promise<FieldError[]> {
  return (await checkSite(db, publisherId, input)).problems;
}

const UNIQUE_VIOLATION = '23505';

/** Registers a site for moderation (status 0). The same address twice for one publisher is a 422. */
export async function createSite(db: Db, publisherId: number, input: NewSiteInput, now: Date): Promise<SiteRow> {
  try {
    return await inTransaction(db, async (trx) => {
      const { problems, url } = await checkSite(trx, publisherId, input);
      if (problems.length > 0 || url === undefined) throw validationFailed(problems);
      return insertSite(trx, { publisherId, url, categoryId: input.categoryId, monthlyUniqUsers: input.monthlyUniqUsers, now });
    });
  } catch (error) {
    // Two requests racing with the same address both pass the check above; the unique index
    // (migration 0350) lets one insert through and the other gets the same 422.
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
      throw invalidField('url', 'You have already added a site with this address.');
    }
    throw error;
  }
}

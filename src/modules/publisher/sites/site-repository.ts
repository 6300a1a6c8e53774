import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { ListWithTotal } from '../../../db/list.ts';
import { containsPattern, type SortOrder } from '../../../shared/list-query.ts';
import { SITE_STATUS, type SiteRow } from './site-schema.ts';

export async function listSiteCategories(db: Db) {
  return db.selectFrom('site_categories').select(['id', 'parent_id', 'title']).orderBy('id').execute();
}

export async function siteCategoryExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('site_categories').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export interface SiteFilter {
  publisherId?: number;
  status?: number;
  /** Only sites whose address contains this text, in any letter case. */
  search?: string;
  /** The order of the list; by id when not given. */
  sort?: SortOrder<SiteSortField>;
}

/** The column behind each sortable field of a site list (the `sort` parameter). */
const SORT_COLUMNS = { id: 'id', url: 'url', created: 'created_at' } as const;
export type SiteSortField = keyof typeof SORT_COLUMNS;
export const SITE_SORT_FIELDS = Object.keys(SORT_COLUMNS) as SiteSortField[];

/** What a field sorts by: addresses in any letter case, byte by byte (`C`), the same order on both databases. */
const sortKey = (field: SiteSortField, table = '') => {
  const column = sql.ref(`${table}${SORT_COLUMNS[field]}`);
  return field === 'url' ? sql`lower(${column}) COLLATE "C"` : column;
};

/** A listed site with the number of its blocks. */
export type ListedSite = SiteRow & { blocks_count: number };

function filteredSites(db: Db, filter: SiteFilter) {
  let query = db.selectFrom('sites');
  if (filter.publisherId !== undefined) query = query.where('publisher_id', '=', filter.publisherId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.search) query = query.where('url', 'ilike', containsPattern(filter.search));
  return query;
}

/**
 * One page of sites (in the asked order) with their block counts, and how many match in all, in one statement:
 * the page's ids come with the count of every match (a window over the filtered rows, taken before
 * the limit), and the blocks are counted for the page's sites only. Only a page past the end,
 * which has no row to carry the count, costs a second statement.
 */
export async function listSites(db: Db, filter: SiteFilter, limit: number, offset: number): Promise<ListWithTotal<ListedSite>> {
  const sort = filter.sort ?? { field: 'id', descending: false };
  const direction = sort.descending ? 'desc' : 'asc';
  const page = filteredSites(db, filter)
    .select(['id', sql<number>`count(*) OVER ()`.as('total')])
    .orderBy(sortKey(sort.field), direction)
    .orderBy('id', direction)
    .limit(limit)
    .offset(offset);
  const rows = await db
    .selectFrom('sites')
    .innerJoin(page.as('page'), 'page.id', 'sites.id')
    .selectAll('sites')
    .select((eb) => [
      'page.total',
      eb
        .selectFrom('blocks')
        .select(sql<number>`count(*)::int`.as('count'))
        .whereRef('blocks.site_id', '=', 'sites.id')
        .as('blocks_count'),
    ])
    .orderBy(sortKey(sort.field, 'sites.'), direction)
    .orderBy('sites.id', direction)
    .execute();
  const first = rows[0];
  if (first !== undefined) {
    return {
      rows: rows.map(({ total: _total, ...row }) => ({ ...row, blocks_count: Number(row.blocks_count ?? 0) })),
      total: Number(first.total),
    };
  }
  if (offset === 0) return { rows: [], total: 0 };
  const counted = await filteredSites(db, filter).select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow();
  return { rows: [], total: Number(counted.total) };
}

/** A site, only when it belongs to the publisher (another account's site is "not found"). */
/** A site's host as addresses are compared across accounts: lower-cased, without `www.` or a port. */
const hostOf = (column: string) =>
  sql<string>`regexp_replace(lower(substring(${sql.ref(column)} from '^[a-z]+://([^/:?#]+)')), '^www[.]', '')`;

/**
 * For each of `siteIds`, the ids of other publishers' sites with the same host: two accounts that
 * submitted one domain, which the operator sees in moderation (docs/security.md).
 */
export async function sitesOfSameHost(db: Db, siteIds: readonly number[]): Promise<Map<number, number[]>> {
  const found = new Map<number, number[]>();
  if (siteIds.length === 0) return found;
  const rows = await db
    .selectFrom('sites as s')
    .innerJoin('sites as o', (join) =>
      join.on(sql<boolean>`${hostOf('o.url')} = ${hostOf('s.url')}`).onRef('o.publisher_id', '<>', 's.publisher_id'),
    )
    .select(['s.id as site_id', 'o.id as other_id'])
    .where('s.id', 'in', [...siteIds])
    .orderBy('s.id')
    .orderBy('o.id')
    .execute();
  for (const row of rows) found.set(row.site_id, [...(found.get(row.site_id) ?? []), row.other_id]);
  return found;
}

export async function findOwnSite(db: Db, publisherId: number, siteId: number): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('id', '=', siteId).where('publisher_id', '=', publisherId).executeTakeFirst();
}

export async function findSiteByUrl(db: Db, publisherId: number, url: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('publisher_id', '=', publisherId).where('url', '=', url).executeTakeFirst();
}

export async function insertSite(
  db: Db,
  values: { publisherId: number; url: string; categoryId: number; monthlyUniqUsers: number; now: Date },
): Promise<SiteRow> {
  return db
    .insertInto('sites')
    .values({
      publisher_id: values.publisherId,
      url: values.url,
      category_id: values.categoryId,
      monthly_uniq_users: values.monthlyUniqUsers,
      status: 0,
      created_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A site's status, its row locked until the transaction ends (the audit's "before" of a decision). */
export async function findSiteStatusForUpdate(db: Db, siteId: number): Promise<number | undefined> {
  const row = await db.selectFrom('sites').select('status').where('id', '=', siteId).forUpdate().executeTakeFirst();
  return row?.status;
}

/**
 * Sets a site's status. A ban keeps its reason on the site; an approval clears it; any other status
 * keeps the last ban's reason in sight.
 */
export async function updateSiteStatus(
  db: Db,
  siteId: number,
  status: number,
  reason: string | null,
): Promise<SiteRow | undefined> {
  return db
    .updateTable('sites')
    .set((eb) => ({
      status,
      moderation_reason:
        status === SITE_STATUS.banned ? reason : status === SITE_STATUS.active ? null : eb.ref('moderation_reason'),
    }))
    .where('id', '=', siteId)
    .returningAll()
    .executeTakeFirst();
}

/** Which of `siteIds` belong to the publisher. */
export async function ownSiteIds(db: Db, publisherId: number, siteIds: readonly number[]): Promise<Set<number>> {
  if (siteIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('sites')
    .select('id')
    .where('id', 'in', [...siteIds])
    .where('publisher_id', '=', publisherId)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Whether a site with this id exists, whoever it belongs to (advertisers set coefficients per site). */
export async function siteExists(db: Db, siteId: number): Promise<boolean> {
  return (await db.selectFrom('sites').select('id').where('id', '=', siteId).executeTakeFirst()) !== undefined;
}

/** Sets the further domains a site's blocks serve on. */
export async function updateSiteDomains(db: Db, siteId: number, domains: string[]): Promise<SiteRow> {
  return db.updateTable('sites').set({ domains }).where('id', '=', siteId).returningAll().executeTakeFirstOrThrow();
}

/** Sets the product categories a site refuses (brand safety). */
export async function updateRefusedCategories(db: Db, siteId: number, categories: number[]): Promise<SiteRow> {
  return db
    .updateTable('sites')
    .set({ refused_categories: categories })
    .where('id', '=', siteId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

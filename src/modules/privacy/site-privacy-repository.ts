import type { Db } from '../../db/database.ts';

/** A site's privacy settings and its latest ads.txt check. */
export async function findSitePrivacy(db: Db, siteId: number, publisherId?: number) {
  let query = db
    .selectFrom('sites')
    .select(['id', 'publisher_id', 'url', 'never_personalise', 'ads_txt_status', 'ads_txt_detail', 'ads_txt_checked_at'])
    .where('id', '=', siteId);
  if (publisherId !== undefined) query = query.where('publisher_id', '=', publisherId);
  return query.executeTakeFirst();
}

export type SitePrivacyRow = NonNullable<Awaited<ReturnType<typeof findSitePrivacy>>>;

export async function setNeverPersonalise(db: Db, siteId: number, value: boolean): Promise<void> {
  await db.updateTable('sites').set({ never_personalise: value }).where('id', '=', siteId).execute();
}

/** Active sites whose ads.txt was checked before `before` (or never), oldest check first. */
export async function sitesDueForAdsTxt(db: Db, before: Date, limit: number) {
  return db
    .selectFrom('sites')
    .select(['id', 'publisher_id', 'url'])
    .where('status', '=', 1)
    .where((eb) => eb.or([eb('ads_txt_checked_at', 'is', null), eb('ads_txt_checked_at', '<', before)]))
    .orderBy('ads_txt_checked_at', (order) => order.nullsFirst())
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function recordAdsTxtCheck(
  db: Db,
  siteId: number,
  check: { status: 'found' | 'missing' | 'unreachable'; detail: string },
  now: Date,
): Promise<void> {
  await db
    .updateTable('sites')
    .set({ ads_txt_status: check.status, ads_txt_detail: check.detail.slice(0, 300), ads_txt_checked_at: now })
    .where('id', '=', siteId)
    .execute();
}

/**
 * The sellers of sellers.json: every publisher with an active site, its name (when it gave one) and
 * the domain of its first active site.
 */
export async function activeSellers(db: Db) {
  return db
    .selectFrom('accounts as a')
    .innerJoin('sites as s', 's.publisher_id', 'a.id')
    .select(['a.id', 'a.name', 's.url'])
    .where('a.kind', '=', 'publisher')
    .where('a.erased_at', 'is', null)
    .where('s.status', '=', 1)
    .orderBy('a.id')
    .orderBy('s.id')
    .execute();
}

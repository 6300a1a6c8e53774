import type { Db } from '../../../db/database.ts';
import { invalidField, notFound } from '../../../http/errors.ts';
import type { Period } from '../../statistics/period.ts';
import { ownBlockSites } from '../blocks/block-repository.ts';
import { ownSiteIds } from '../sites/site-repository.ts';
import { publisherFigures } from './figures.ts';
import { dailyTotals } from './statistics-repository.ts';

const ID_LIST = /^\s*\d{1,10}\s*(,\s*\d{1,10}\s*)*$/;
const MAX_ID = 2_147_483_647;

/**
 * Reads a comma-separated id list (`1,2, 3`). Absent or empty means "no filter"; anything else
 * that is not a list of positive integers is a 422 naming the parameter.
 */
export function parseIdList(value: string | undefined, field: string): number[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!ID_LIST.test(value)) throw invalidField(field, 'Must be a comma-separated list of numeric ids.');
  const ids = [...new Set(value.split(',').map((part) => Number(part.trim())))];
  if (ids.some((id) => id < 1 || id > MAX_ID)) throw invalidField(field, 'Ids must be positive integers.');
  return ids;
}

/**
 * The publisher's statistics, one row per day (or hour) that has traffic in the period. Every listed site
 * and block must be the caller's: an unknown or another publisher's id is a 404, as a direct read
 * of that object would be. Site and block filters combine (a row counts when both match).
 */
export async function publisherStatistics(
  db: Db,
  publisherId: number,
  filter: { period: Period; siteIds?: number[]; blockIds?: number[]; hourly?: boolean },
) {
  let siteIds = filter.siteIds;
  if (siteIds !== undefined) {
    const own = await ownSiteIds(db, publisherId, siteIds);
    if (siteIds.some((id) => !own.has(id))) throw notFound('Site');
  }
  if (filter.blockIds !== undefined) {
    const own = await ownBlockSites(db, publisherId, filter.blockIds);
    if (filter.blockIds.some((id) => !own.has(id))) throw notFound('Block');
    siteIds ??= [...new Set(own.values())];
  }
  const days = await dailyTotals(db, { publisherId, ...filter, siteIds });
  return days.map(({ day, hour, totals }) => ({
    date: day,
    ...(filter.hourly ? { hour } : {}),
    ...publisherFigures(totals),
  }));
}

import type { Db } from '../../../db/database.ts';
import { ApiError, invalidField, notFound } from '../../../http/errors.ts';
import { SITE_STATUSES } from '../sites/site-schema.ts';
import { getOwnSite } from '../sites/site-service.ts';
import { findOwnBlock, insertBlock } from './block-repository.ts';
import { type BlockRow, MAX_TEASERS, MIN_TEASERS } from './block-schema.ts';

export const DEFAULT_TEASERS = 4;

export async function getOwnBlock(db: Db, publisherId: number, blockId: number): Promise<BlockRow> {
  const block = await findOwnBlock(db, publisherId, blockId);
  if (block === undefined) throw notFound('Block');
  return block;
}

const BANNED = SITE_STATUSES.indexOf('banned');

/**
 * Adds a block to one of the publisher's sites. `count` and its alias `size` give the number of
 * teasers; when both are sent they must agree. A banned site gets no new blocks (409: the request
 * is well formed, the site's state refuses it, and only an operator can change that state); a
 * site in moderation does, so a publisher can prepare its blocks before approval.
 */
export async function createBlock(
  db: Db,
  publisherId: number,
  siteId: number,
  input: { title: string; count?: number; size?: number },
  now: Date,
): Promise<BlockRow> {
  if (input.count !== undefined && input.size !== undefined && input.count !== input.size)
    throw invalidField('size', 'Must equal count when both are given (size is an alias of count).');
  const teaserCount = input.count ?? input.size ?? DEFAULT_TEASERS;
  if (teaserCount < MIN_TEASERS || teaserCount > MAX_TEASERS)
    throw invalidField(input.count !== undefined ? 'count' : 'size', `Must be between ${MIN_TEASERS} and ${MAX_TEASERS}.`);
  return db.transaction().execute(async (trx) => {
    const site = await getOwnSite(trx, publisherId, siteId);
    if (site.status === BANNED) throw new ApiError(409, `Site ${siteId} is banned: no blocks can be added to it.`);
    return insertBlock(trx, { siteId, title: input.title, teaserCount, now });
  });
}

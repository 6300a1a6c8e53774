import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError, type FieldError, invalidField, notFound, validationFailed } from '../../../errors.ts';
import { readMoney } from '../../../shared/money-input.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import { SITE_STATUSES } from '../sites/site-schema.ts';
import { getOwnSite } from '../sites/site-service.ts';
import { type BlockDesign, mergeDesign, readDesign } from './block-design.ts';
import { findOwnBlock, insertBlock, updateBlockOptions } from './block-repository.ts';
import type { BlockRow } from './block-schema.ts';

export const DEFAULT_TEASERS = 4;

export async function getOwnBlock(db: Db, publisherId: number, blockId: number): Promise<BlockRow> {
  const block = await findOwnBlock(db, publisherId, blockId);
  if (block === undefined) throw notFound('Block');
  return block;
}

const BANNED = SITE_STATUSES.indexOf('banned');

export interface NewBlockInput {
  title: string;
  count?: number;
  size?: number;
  noCampaignRepeats?: boolean;
}

/**
 * The rules of a new block's fields beyond its schema (which bounds each count): `count` and its
 * alias `size` must agree when both are sent. Written for input its schema may have refused.
 */
export function blockFieldErrors(input: Unchecked<NewBlockInput>): FieldError[] {
  if (typeof input.count === 'number' && typeof input.size === 'number' && input.count !== input.size) {
    return [{ field: 'size', message: 'Must equal count when both are given (size is an alias of count).' }];
  }
  return [];
}

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
  input: NewBlockInput,
  now: Date,
): Promise<BlockRow> {
  const problems = blockFieldErrors(input);
  if (problems.length > 0) throw validationFailed(problems);
  const teaserCount = input.count ?? input.size ?? DEFAULT_TEASERS;
  return inTransaction(db, async (trx) => {
    const site = await getOwnSite(trx, publisherId, siteId);
    if (site.status === BANNED) throw new DomainError('site_banned', `Site ${siteId} is banned: no blocks can be added to it.`);
    return insertBlock(trx, {
      siteId,
      title: input.title,
      teaserCount,
      noCampaignRepeats: input.noCampaignRepeats ?? false,
      now,
    });
  });
}

/**
 * Changes a block's options: whether campaigns may repeat on a page, its minimum CPC; 404 when
 * not the publisher's, 422 when nothing is given.
 */
export async function changeBlock(
  db: Db,
  publisherId: number,
  blockId: number,
  options: { noCampaignRepeats?: boolean; minCpc?: number | string; design?: Partial<BlockDesign> | null },
) {
  if (options.noCampaignRepeats === undefined && options.minCpc === undefined && options.design === undefined) {
    throw invalidField('noCampaignRepeats', 'Give at least one of noCampaignRepeats, minCpc, design.');
  }
  const minCpcMicros = options.minCpc === undefined ? undefined : readMoney(options.minCpc, 'minCpc', { sign: 'non-negative' });
  return inTransaction(db, async (trx) => {
    const block = await getOwnBlock(trx, publisherId, blockId);
    const problems: FieldError[] = [];
    const design = mergeDesign(readDesign(block.design), options.design, problems);
    if (problems.length > 0) throw validationFailed(problems);
    // The grid decides how many teasers the block shows.
    const teaserCount = design ? design.columns * design.rows : undefined;
    return updateBlockOptions(trx, blockId, { noCampaignRepeats: options.noCampaignRepeats, minCpcMicros, design, teaserCount });
  });
}

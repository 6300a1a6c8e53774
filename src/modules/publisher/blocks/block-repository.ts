import type { Db } from '../../../db/database.ts';
import type { BlockDesign } from './block-design.ts';
import type { BlockRow } from './block-schema.ts';

/** A block, only when its site belongs to the publisher. */
export async function findOwnBlock(db: Db, publisherId: number, blockId: number): Promise<BlockRow | undefined> {
  return db
    .selectFrom('blocks')
    .innerJoin('sites', 'sites.id', 'blocks.site_id')
    .selectAll('blocks')
    .where('blocks.id', '=', blockId)
    .where('sites.publisher_id', '=', publisherId)
    .executeTakeFirst();
}

export async function listBlocksOfSite(db: Db, siteId: number): Promise<BlockRow[]> {
  return db.selectFrom('blocks').selectAll().where('site_id', '=', siteId).orderBy('id').execute();
}

export async function countBlocksBySite(db: Db, siteIds: readonly number[]): Promise<Map<number, number>> {
  if (siteIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('blocks')
    .select(['site_id', (eb) => eb.fn.countAll<string>().as('count')])
    .where('site_id', 'in', [...siteIds])
    .groupBy('site_id')
    .execute();
  return new Map(rows.map((row) => [row.site_id, Number(row.count)]));
}

export async function insertBlock(
  db: Db,
  values: { siteId: number; title: string; teaserCount: number; noCampaignRepeats: boolean; now: Date },
): Promise<BlockRow> {
  return db
    .insertInto('blocks')
    .values({
      site_id: values.siteId,
      title: values.title,
      teaser_count: values.teaserCount,
      no_campaign_repeats: values.noCampaignRepeats,
      created_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateBlockOptions(
  db: Db,
  blockId: number,
  options: { noCampaignRepeats?: boolean; minCpcMicros?: number; design?: BlockDesign | null; teaserCount?: number },
): Promise<BlockRow> {
  return db
    .updateTable('blocks')
    .set({
      ...(options.noCampaignRepeats === undefined ? {} : { no_campaign_repeats: options.noCampaignRepeats }),
      ...(options.minCpcMicros === undefined ? {} : { min_cpc_micros: options.minCpcMicros }),
      ...(options.design === undefined ? {} : { design: options.design === null ? null : JSON.stringify(options.design) }),
      ...(options.teaserCount === undefined ? {} : { teaser_count: options.teaserCount }),
    })
    .where('id', '=', blockId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Which of `blockIds` are blocks of the publisher's sites, each with its site. */
export async function ownBlockSites(db: Db, publisherId: number, blockIds: readonly number[]): Promise<Map<number, number>> {
  if (blockIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('blocks')
    .innerJoin('sites', 'sites.id', 'blocks.site_id')
    .select(['blocks.id', 'blocks.site_id'])
    .where('blocks.id', 'in', [...blockIds])
    .where('sites.publisher_id', '=', publisherId)
    .execute();
  return new Map(rows.map((row) => [row.id, row.site_id]));
}

/** Whether the block belongs to the site. */
export async function blockBelongsToSite(db: Db, siteId: number, blockId: number): Promise<boolean> {
  const row = await db
    .selectFrom('blocks')
    .select('id')
    .where('id', '=', blockId)
    .where('site_id', '=', siteId)
    .executeTakeFirst();
  return row !== undefined;
}

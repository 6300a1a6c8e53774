import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../../db/list.ts';
import type { OffersTable } from '../../../db/schema.ts';
import { containsPattern, type SortOrder } from '../../../shared/list-query.ts';
import { MODERATION, type ModerationStatus } from '../../moderation/index.ts';
import type { OfferRecord } from './offer-schema.ts';

function selectOffers(db: Db) {
  return db
    .selectFrom('offers')
    .innerJoin('campaigns', 'campaigns.id', 'offers.campaign_id')
    .selectAll('offers')
    .select('campaigns.is_retarget')
    .where('offers.deleted_at', 'is', null);
}

/** The column behind each sortable field of the ad list (the `sort` parameter, named as the answer's fields). */
const SORT_COLUMNS = { id: 'id', title: 'title', opis: 'description', stavka: 'bid_micros', created: 'created_at' } as const;
export type OfferSortField = keyof typeof SORT_COLUMNS;
export const OFFER_SORT_FIELDS = Object.keys(SORT_COLUMNS) as OfferSortField[];

/** What a field sorts by: texts in any letter case, byte by byte (`C`), the same order on both databases. */
const sortKey = (field: OfferSortField) => {
  const column = sql.ref(`offers.${SORT_COLUMNS[field]}`);
  return field === 'title' || field === 'opis' ? sql`lower(${column}) COLLATE "C"` : column;
};

export interface OfferListFilter {
  advertiserId: number;
  campaignId?: number;
  /** Only ads whose title or text contains this text, in any letter case. */
  search?: string;
  /** The order of the list; by id when not given. */
  sort?: SortOrder<OfferSortField>;
}

/** One page of the advertiser's ads that are not deleted, in the asked order (ties by id), and how many match. */
export async function listOffers(
  db: Db,
  filter: OfferListFilter,
  limit: number,
  offset: number,
): Promise<ListWithTotal<OfferRecord>> {
  let query = db
    .selectFrom('offers')
    .innerJoin('campaigns', 'campaigns.id', 'offers.campaign_id')
    .where('offers.deleted_at', 'is', null)
    .where('campaigns.advertiser_id', '=', filter.advertiserId);
  if (filter.campaignId !== undefined) query = query.where('offers.campaign_id', '=', filter.campaignId);
  const { search } = filter;
  if (search) {
    const pattern = containsPattern(search);
    query = query.where((eb) => eb.or([eb('offers.title', 'ilike', pattern), eb('offers.description', 'ilike', pattern)]));
  }
  const sort = filter.sort ?? { field: 'id', descending: false };
  const direction = sort.descending ? 'desc' : 'asc';
  return listWithTotal(query, (filtered) =>
    filtered
      .selectAll('offers')
      .select('campaigns.is_retarget')
      .orderBy(sortKey(sort.field), direction)
      .orderBy('offers.id', direction)
      .limit(limit)
      .offset(offset),
  );
}

/** The advertiser's ad that is not deleted, or undefined. */
export async function findOffer(db: Db, advertiserId: number, id: number): Promise<OfferRecord | undefined> {
  return selectOffers(db).where('offers.id', '=', id).where('campaigns.advertiser_id', '=', advertiserId).executeTakeFirst();
}

/** The campaign's ads that are not deleted, by id. */
export async function listOffersOfCampaign(db: Db, campaignId: number): Promise<OfferRecord[]> {
  return selectOffers(db).where('offers.campaign_id', '=', campaignId).orderBy('offers.id').execute();
}

export async function insertOffer(db: Db, values: Insertable<OffersTable>): Promise<number> {
  const row = await db.insertInto('offers').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function setOfferActive(db: Db, id: number, active: boolean, now: Date): Promise<void> {
  await db.updateTable('offers').set({ active, updated_at: now }).where('id', '=', id).execute();
}

/** A new bid per click, in micros. */
export async function setOfferBid(db: Db, id: number, bidMicros: number, now: Date): Promise<void> {
  await db.updateTable('offers').set({ bid_micros: bidMicros, updated_at: now }).where('id', '=', id).execute();
}

/** The columns of an ad a moderator judges. */
export type OfferContent = Pick<
  Updateable<OffersTable>,
  | 'title'
  | 'description'
  | 'url'
  | 'url_mobile'
  | 'image_wide'
  | 'image_square'
  | 'price'
  | 'old_price'
  | 'discount'
  | 'discount_type'
  | 'price_text'
>;

/**
 * New content for an ad: it goes back to moderation, and the reason of an earlier rejection no
 * longer applies; what was approved keeps serving meanwhile.
 */
export async function setOfferContent(db: Db, id: number, content: OfferContent, now: Date): Promise<void> {
  await keepApprovedVersion(db, id, now);
  await db
    .updateTable('offers')
    .set({ ...content, moderation_status: MODERATION.moderation, moderation_reason: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Hides the ad for good; its rows in the statistics rollup stay. */
export async function markOfferDeleted(db: Db, id: number, now: Date): Promise<void> {
  await db.updateTable('offers').set({ deleted_at: now, active: false, updated_at: now }).where('id', '=', id).execute();
}

/** Whether `id` is a direct child of the category `parentId`. */
export async function isSubCategoryOf(db: Db, id: number, parentId: number | null): Promise<boolean> {
  if (parentId === null) return false;
  const row = await db
    .selectFrom('categories')
    .select('id')
    .where('id', '=', id)
    .where('parent_id', '=', parentId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deleted ads are gone for everyone, moderators included. */
export async function setOfferModeration(db: Db, id: number, status: ModerationStatus, reason: string | null, now: Date) {
  return db
    .updateTable('offers')
    .set((eb) => ({
      moderation_status: status,
      moderation_reason:
        status === MODERATION.rejected ? reason : status === MODERATION.approved ? null : eb.ref('moderation_reason'),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returning((eb) => [
      'id',
      'moderation_status',
      'moderation_reason',
      'title',
      'campaign_id',
      eb.selectFrom('campaigns').select('advertiser_id').whereRef('campaigns.id', '=', 'offers.campaign_id').as('advertiser_id'),
    ])
    .executeTakeFirst();
}

/**
 * Before an approved ad changes (an edit, or an operator sending it back to the queue), keeps its
 * approved content: serving shows it, and the ad's links lead to its URLs, until the next decision.
 * Nothing is kept for an ad that is not approved: a kept version stays until that decision.
 */
export async function keepApprovedVersion(db: Db, id: number, now: Date): Promise<void> {
  await db
    .insertInto('offer_approved_versions')
    .columns(['offer_id', 'title', 'description', 'price_text', 'url', 'url_mobile', 'image_square', 'image_wide', 'approved_at'])
    .expression((eb) =>
      eb
        .selectFrom('offers')
        .select([
          'id',
          'title',
          'description',
          'price_text',
          'url',
          'url_mobile',
          'image_square',
          'image_wide',
          eb.val(now).as('approved_at'),
        ])
        .where('id', '=', id)
        .where('moderation_status', '=', MODERATION.approved),
    )
    .onConflict((conflict) => conflict.column('offer_id').doNothing())
    .execute();
}

/**
 * A decision makes the kept version moot: approval (the ad's own content is now what was approved)
 * or rejection (nothing of the ad serves, and its links lead nowhere, until it is approved again).
 */
export async function dropApprovedVersion(db: Db, id: number): Promise<void> {
  await db.deleteFrom('offer_approved_versions').where('offer_id', '=', id).execute();
}

/** Every advertiser's ads that are not deleted, by id, in one moderation status or all. */
export async function listOffersForModeration(db: Db, status: ModerationStatus | undefined, limit: number, offset: number) {
  let query = db
    .selectFrom('offers')
    .innerJoin('campaigns', 'campaigns.id', 'offers.campaign_id')
    .where('offers.deleted_at', 'is', null);
  if (status !== undefined) query = query.where('offers.moderation_status', '=', status);
  return listWithTotal(query, (filtered) =>
    filtered
      .select([
        'offers.id',
        'offers.campaign_id',
        'campaigns.advertiser_id',
        'campaigns.title as campaign_title',
        'offers.title',
        'offers.description',
        'offers.price_text',
        'offers.url',
        'offers.bid_micros',
        'offers.image_square',
        'offers.image_wide',
        'offers.moderation_status',
        'offers.moderation_reason',
        'offers.created_at',
      ])
      .orderBy('offers.id')
      .limit(limit)
      .offset(offset),
  );
}

/** An ad's moderation status, its row locked until the transaction ends (the audit's "before"). */
export async function findOfferModerationStatusForUpdate(db: Db, id: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('offers')
    .select('moderation_status')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  return row?.moderation_status;
}

/** The campaigns of the given ads (deleted ads included: their statistics are kept). */
export async function campaignsOfOffers(db: Db, offerIds: readonly number[]): Promise<number[]> {
  if (offerIds.length === 0) return [];
  const rows = await db
    .selectFrom('offers')
    .select('campaign_id')
    .distinct()
    .where('id', 'in', [...offerIds])
    .execute();
  return rows.map((row) => row.campaign_id);
}

/** The campaign of the advertiser's ad `id` (deleted ads included), or undefined when it is not the advertiser's. */
export async function campaignOfOwnOffer(db: Db, advertiserId: number, id: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('offers')
    .innerJoin('campaigns', 'campaigns.id', 'offers.campaign_id')
    .select('offers.campaign_id')
    .where('offers.id', '=', id)
    .where('campaigns.advertiser_id', '=', advertiserId)
    .executeTakeFirst();
  return row?.campaign_id;
}

/**
 * Copies ads that are not deleted (all of a campaign's, or one) into a campaign, each awaiting
 * moderation and keeping its on/off flag; answers the new ids, in the order of the originals.
 */
export async function copyOffers(
  trx: Db,
  from: { campaignId: number } | { offerId: number },
  toCampaignId: number,
  now: Date,
): Promise<number[]> {
  let originals = trx.selectFrom('offers').selectAll().where('deleted_at', 'is', null);
  originals =
    'campaignId' in from ? originals.where('campaign_id', '=', from.campaignId) : originals.where('id', '=', from.offerId);
  const rows = await originals.orderBy('id').execute();
  const ids: number[] = [];
  for (const { id: _id, created_at: _created, updated_at: _updated, ...row } of rows) {
    ids.push(
      await insertOffer(trx, { ...row, campaign_id: toCampaignId, moderation_status: 0, created_at: now, updated_at: now }),
    );
  }
  return ids;
}

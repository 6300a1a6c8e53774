import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../../db/list.ts';
import { containsPattern, type SortOrder } from '../../../shared/list-query.ts';
import { MODERATION, type ModerationStatus } from '../../moderation/index.ts';
import type { ControlColumns } from './campaign-control.ts';
import type { CampaignRecord } from './campaign-schema.ts';

export interface CampaignListFilter {
  advertiserId: number;
  /** true: retargeting only; false: standard only; undefined: both. */
  retarget?: boolean;
  includeArchived: boolean;
  ids?: readonly number[];
  /** Only campaigns whose title contains this text, in any letter case. */
  search?: string;
  /** The order of the list; by id when not given. */
  sort?: SortOrder<CampaignSortField>;
}

function selectCampaigns(db: Db) {
  return db
    .selectFrom('campaigns')
    .selectAll('campaigns')
    .select((eb) =>
      eb
        .selectFrom('offers')
        .select(sql<number>`count(*)::int`.as('count'))
        .whereRef('offers.campaign_id', '=', 'campaigns.id')
        .where('offers.deleted_at', 'is', null)
        .as('items'),
    );
}

/** The column behind each sortable field of the campaign list (the `sort` parameter). */
const SORT_COLUMNS = { id: 'id', title: 'title', created: 'created_at' } as const;

/**
 * What a field sorts by: titles in any letter case, compared byte by byte (`C`), so that both
 * databases give one order whatever their default collation.
 */
const sortKey = (field: CampaignSortField, table = '') => {
  const column = sql.ref(`${table}${SORT_COLUMNS[field]}`);
  return field === 'title' ? sql`lower(${column}) COLLATE "C"` : column;
};
export type CampaignSortField = keyof typeof SORT_COLUMNS;
export const CAMPAIGN_SORT_FIELDS = Object.keys(SORT_COLUMNS) as CampaignSortField[];

function filtered(db: Db, filter: CampaignListFilter) {
  let query = db.selectFrom('campaigns').where('advertiser_id', '=', filter.advertiserId);
  if (filter.search) query = query.where('title', 'ilike', containsPattern(filter.search));
  if (filter.retarget !== undefined) query = query.where('is_retarget', '=', filter.retarget);
  if (!filter.includeArchived) query = query.where('archived', '=', false);
  if (filter.ids) query = query.where('id', 'in', filter.ids.length > 0 ? filter.ids : [0]);
  return query;
}

const withItems = (row: Omit<CampaignRecord, 'items'> & { items: number | null }): CampaignRecord => ({
  ...row,
  items: Number(row.items ?? 0),
});

/**
 * One page of an advertiser's campaigns (by id) and how many match in all, in one statement: the
 * page's ids come with the count of every match (a window over the filtered rows, taken before the
 * limit), so the ad counts are computed for the page's campaigns only. Only a page past the end,
 * which has no row to carry the count, costs a second statement.
 */
export async function listCampaigns(
  db: Db,
  filter: CampaignListFilter,
  limit: number,
  offset: number,
): Promise<ListWithTotal<CampaignRecord>> {
  const sort = filter.sort ?? { field: 'id', descending: false };
  const direction = sort.descending ? 'desc' : 'asc';
  const page = filtered(db, filter)
    .select(['id', sql<number>`count(*) OVER ()`.as('total')])
    .orderBy(sortKey(sort.field), direction)
    .orderBy('id', direction)
    .limit(limit)
    .offset(offset);
  const rows = await selectCampaigns(db)
    .innerJoin(page.as('page'), 'page.id', 'campaigns.id')
    .select('page.total')
    .orderBy(sortKey(sort.field, 'campaigns.'), direction)
    .orderBy('campaigns.id', direction)
    .execute();
  const first = rows[0];
  if (first !== undefined) return { rows: rows.map(({ total: _total, ...row }) => withItems(row)), total: Number(first.total) };
  if (offset === 0) return { rows: [], total: 0 };
  const counted = await filtered(db, filter).select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow();
  return { rows: [], total: Number(counted.total) };
}

/** The advertiser's campaign, or undefined when it does not exist or is someone else's. */
export async function findCampaign(db: Db, advertiserId: number, id: number): Promise<CampaignRecord | undefined> {
  const row = await selectCampaigns(db)
    .where('campaigns.id', '=', id)
    .where('campaigns.advertiser_id', '=', advertiserId)
    .executeTakeFirst();
  return row === undefined ? undefined : withItems(row);
}

export interface NewCampaign {
  advertiserId: number;
  title: string;
  categoryId: number;
  geo: string[];
  isRetarget: boolean;
  active: boolean;
  dailyBudgetMicros: number;
  dailyClickLimit: number;
  delivery: CampaignDelivery;
  control: ControlColumns;
  now: Date;
}

/** Frequency cap, schedule and its time zone, in the columns' terms (0 and nulls: none). */
export interface CampaignDelivery {
  frequencyCap?: number;
  scheduleHours?: number[] | null;
  timeZone?: string | null;
}

function deliveryColumns(delivery: CampaignDelivery) {
  return {
    ...(delivery.frequencyCap === undefined ? {} : { frequency_cap: delivery.frequencyCap }),
    ...(delivery.scheduleHours === undefined ? {} : { schedule_hours: delivery.scheduleHours }),
    ...(delivery.timeZone === undefined ? {} : { time_zone: delivery.timeZone }),
  };
}

export async function insertCampaign(db: Db, campaign: NewCampaign): Promise<number> {
  const row = await db
    .insertInto('campaigns')
    .values({
      advertiser_id: campaign.advertiserId,
      title: campaign.title,
      category_id: campaign.categoryId,
      geo: campaign.geo,
      is_retarget: campaign.isRetarget,
      active: campaign.active,
      moderation_status: MODERATION.moderation,
      daily_budget_micros: campaign.dailyBudgetMicros,
      daily_click_limit: campaign.dailyClickLimit,
      ...deliveryColumns(campaign.delivery),
      ...campaign.control,
      created_at: campaign.now,
      updated_at: campaign.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateCampaignFlags(
  db: Db,
  id: number,
  flags: { active?: boolean; archived?: boolean },
  delivery: CampaignDelivery,
  now: Date,
  control: ControlColumns & { daily_budget_micros?: number; daily_click_limit?: number } = {},
): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({ ...flags, ...deliveryColumns(delivery), ...control, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * A campaign's new title, category and/or countries. A new category sends it back to moderation
 * (a moderator checks its ads against it) and clears the reason of an earlier rejection.
 */
export async function updateCampaignDescription(
  db: Db,
  id: number,
  description: { title?: string; category_id?: number; geo?: string[] },
  now: Date,
): Promise<void> {
  const backToModeration =
    description.category_id === undefined ? {} : { moderation_status: MODERATION.moderation, moderation_reason: null };
  await db
    .updateTable('campaigns')
    .set({ ...description, ...backToModeration, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Whether `id` is a root category of the product tree (campaigns are filed under those). */
export async function isRootCategory(db: Db, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('categories')
    .select('id')
    .where('id', '=', id)
    .where('parent_id', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Sets a campaign's moderation status. A rejection keeps its reason on the campaign; an approval
 * clears it; a return to moderation keeps the last rejection's reason in sight.
 */
export async function setCampaignModeration(db: Db, id: number, status: ModerationStatus, reason: string | null, now: Date) {
  return db
    .updateTable('campaigns')
    .set((eb) => ({
      moderation_status: status,
      moderation_reason:
        status === MODERATION.rejected ? reason : status === MODERATION.approved ? null : eb.ref('moderation_reason'),
      updated_at: now,
    }))
    .where('id', '=', id)
    .returning(['id', 'moderation_status', 'advertiser_id', 'title', 'moderation_reason'])
    .executeTakeFirst();
}

/** Every advertiser's campaigns, by id, in one moderation status or all. */
export async function listCampaignsForModeration(db: Db, status: ModerationStatus | undefined, limit: number, offset: number) {
  let query = db.selectFrom('campaigns');
  if (status !== undefined) query = query.where('moderation_status', '=', status);
  return listWithTotal(query, (filtered) =>
    filtered
      .select([
        'id',
        'advertiser_id',
        'title',
        'geo',
        'is_retarget',
        'moderation_status',
        'moderation_reason',
        'archived',
        'created_at',
      ])
      .orderBy('id')
      .limit(limit)
      .offset(offset),
  );
}

/** A campaign's moderation status, its row locked until the transaction ends (the audit's "before"). */
export async function findModerationStatusForUpdate(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('campaigns').select('moderation_status').where('id', '=', id).forUpdate().executeTakeFirst();
  return row?.moderation_status;
}

/** The advertiser's campaigns (archived ones included): all of them, or those among `ids`. */
export async function ownCampaignIds(db: Db, advertiserId: number, ids?: readonly number[]): Promise<number[]> {
  if (ids?.length === 0) return [];
  let query = db.selectFrom('campaigns').select('id').where('advertiser_id', '=', advertiserId);
  if (ids !== undefined) query = query.where('id', 'in', [...ids]);
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => row.id);
}

/**
 * A copy of a campaign row under a new title: its settings, awaiting moderation, not archived.
 * Answers the new id.
 */
export async function insertCampaignCopy(trx: Db, original: CampaignRecord, title: string, now: Date): Promise<number> {
  const { id: _id, items: _items, created_at: _created, updated_at: _updated, ...row } = original;
  const copy = await trx
    .insertInto('campaigns')
    .values({ ...row, title, moderation_status: MODERATION.moderation, archived: false, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return copy.id;
}

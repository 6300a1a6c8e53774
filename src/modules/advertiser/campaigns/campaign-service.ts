import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { type FieldError, invalidField, notFound, validationFailed } from '../../../errors.ts';
import { isId } from '../../../shared/ids.ts';
import { checkMoney } from '../../../shared/money-input.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import type { Period } from '../../statistics/index.ts';
import { readIdList, type TargetId, totalsByCampaign, ZERO_TOTALS } from '../../statistics/index.ts';
import { DESCRIPTION_LIMIT, longestOfferDescription, offersWithTotals } from '../offers/offer-service.ts';
import { type ControlColumns, type ControlInput, checkControl } from './campaign-control.ts';
import {
  type CampaignDelivery,
  type CampaignListFilter,
  findCampaign,
  insertCampaign,
  insertCampaignCopy,
  isRootCategory,
  listCampaigns,
  type NewCampaign,
  updateCampaignDescription,
  updateCampaignFlags,
} from './campaign-repository.ts';
import { type Campaign, type CampaignRecord, toCampaign } from './campaign-schema.ts';
import { checkGeo } from './geo.ts';
import { checkSchedule, checkTimeZone } from './schedule-input.ts';

export interface CampaignQuery extends CampaignListFilter {
  period: Period;
  targetId: TargetId;
  limit: number;
  offset: number;
}

/**
 * One page of an advertiser's campaigns with their statistics for the period (lifetime without
 * dates), and the number that match. The statistics are summed for the page's campaigns only.
 * Other modules embed campaigns with this (e.g. `expand=campaigns` on an advertiser's client).
 */
export async function listCampaignsWithStats(db: Db, query: CampaignQuery): Promise<{ campaigns: Campaign[]; total: number }> {
  const { rows, total } = await listCampaigns(db, query, query.limit, query.offset);
  const totals = await totalsByCampaign(db, {
    campaignIds: rows.map((row) => row.id),
    period: query.period,
    targetId: query.targetId,
  });
  return { campaigns: rows.map((row) => toCampaign(row, totals.get(row.id) ?? ZERO_TOTALS)), total };
}

/** The advertiser's campaign row; 404 when it does not exist or belongs to someone else. */
export async function requireCampaign(db: Db, advertiserId: number, id: number): Promise<CampaignRecord> {
  const row = await findCampaign(db, advertiserId, id);
  if (row === undefined) throw notFound('Campaign');
  return row;
}

/** The advertiser's campaign with its statistics for the period. */
export async function getCampaignWithStats(
  db: Db,
  advertiserId: number,
  id: number,
  period: Period,
  targetId: TargetId,
): Promise<{ row: CampaignRecord; campaign: Campaign }> {
  const row = await requireCampaign(db, advertiserId, id);
  const totals = await totalsByCampaign(db, { campaignIds: [id], period, targetId });
  return { row, campaign: toCampaign(row, totals.get(id) ?? ZERO_TOTALS) };
}

/** What an advertiser sends to create a campaign; absent flags and limits take their defaults. */
export interface CampaignInput extends ControlInput {
  title: string;
  categoryId: number;
  geo?: unknown;
  isRetarget?: boolean;
  active?: boolean;
  /** The daily spending limit as sent (an amount); 0 or none means no limit. */
  dailyBudget?: number | string;
  dailyClickLimit?: number;
  /** Views per visitor per day; 0 means none. */
  frequencyCap?: number;
  /** Hours of the week as sent (see schedule-input.ts); null clears. */
  schedule?: unknown;
  /** IANA time zone name; null clears. */
  timeZone?: unknown;
}

/** What may change on an existing campaign. */
export interface CampaignChange extends ControlInput {
  /** The advertiser's own name of it: never shown to visitors, so it keeps the moderation status. */
  title?: string;
  /** A new category sends the campaign back to moderation (a moderator checks its ads against it). */
  categoryId?: number;
  /** Targeting, not content: it keeps the moderation status. */
  geo?: unknown;
  active?: boolean;
  archived?: boolean;
  /** Daily limits: they apply at once and never send the campaign back to moderation. */
  dailyBudget?: number | string;
  dailyClickLimit?: number;
  frequencyCap?: number;
  schedule?: unknown;
  timeZone?: unknown;
}

/**
 * The rules of the delivery fields (cap, schedule, time zone): the 422 entries, and the columns'
 * values when there are none. Written for input its schema may have refused.
 */
function checkDelivery(
  input: Unchecked<Pick<CampaignInput, 'frequencyCap' | 'schedule' | 'timeZone'>>,
  problems: FieldError[],
): CampaignDelivery {
  const scheduleHours = checkSchedule(input.schedule);
  if (scheduleHours !== null && scheduleHours !== undefined && !Array.isArray(scheduleHours)) problems.push(scheduleHours);
  const timeZone = checkTimeZone(input.timeZone);
  if (timeZone !== null && typeof timeZone === 'object') problems.push(timeZone);
  return {
    frequencyCap: typeof input.frequencyCap === 'number' ? input.frequencyCap : undefined,
    scheduleHours: Array.isArray(scheduleHours) || scheduleHours === null ? scheduleHours : undefined,
    timeZone: typeof timeZone === 'string' || timeZone === null ? timeZone : undefined,
  };
}

/** The time zone a campaign's date-times without an offset are read in: the one sent, the campaign's, or the platform's. */
function clockOf(input: { timeZone?: unknown }, stored: string | null, platformTimeZone: string): string {
  return typeof input.timeZone === 'string' && input.timeZone !== '' ? input.timeZone : (stored ?? platformTimeZone);
}

/** The 422 entries of a campaign change's fields beyond its schema (the PUT route's `fieldRules`). */
export function campaignChangeFieldErrors(input: Unchecked<CampaignChange>, platformTimeZone: string): FieldError[] {
  const problems: FieldError[] = [];
  const delivery = checkDelivery(input, problems);
  const budget = dailyBudgetOf(input.dailyBudget);
  if (budget !== undefined && typeof budget !== 'number') problems.push(budget);
  if (problems.length === 0) checkControl(input, clockOf(delivery, null, platformTimeZone), problems);
  return problems;
}

/** A daily budget as micros (undefined when not given), or the 422 entry that refuses it. */
function dailyBudgetOf(value: unknown): number | FieldError | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' && typeof value !== 'string') return undefined; // the schema's to refuse
  return checkMoney(value, 'maxmoney', { sign: 'non-negative' });
}

const LIFETIME: Period = { from: undefined, to: undefined };

/**
 * Every rule of a campaign's fields beyond its schema. Written for input its schema may have
 * refused: a field that is absent or ill-typed is left to the schema. Errors name the API's fields.
 */
async function checkCampaign(
  db: Db,
  input: Unchecked<CampaignInput>,
  platformTimeZone: string,
): Promise<{
  problems: FieldError[];
  checked?: { geo: string[]; dailyBudgetMicros: number; delivery: CampaignDelivery; control: ControlColumns };
}> {
  const problems: FieldError[] = [];
  if (typeof input.title === 'string' && input.title.trim() === '')
    problems.push({ field: 'title', message: 'Must not be empty.' });
  if (isId(input.categoryId) && !(await isRootCategory(db, input.categoryId))) {
    problems.push({ field: 'category_id', message: 'Must be the id of a root category (GET /advertiser/categories).' });
  }
  const geo = checkGeo(input.geo);
  if (!Array.isArray(geo)) problems.push(geo);
  const dailyBudgetMicros =
    input.dailyBudget === undefined ? 0 : checkMoney(input.dailyBudget, 'maxmoney', { sign: 'non-negative' });
  if (typeof dailyBudgetMicros !== 'number') problems.push(dailyBudgetMicros);
  const delivery = checkDelivery(input, problems);
  const control = checkControl(input, clockOf(delivery, null, platformTimeZone), problems);
  if (problems.length > 0 || !Array.isArray(geo) || typeof dailyBudgetMicros !== 'number') return { problems };
  return { problems, checked: { geo, dailyBudgetMicros, delivery, control } };
}

/** The 422 entries of a campaign's fields by the rules of its service (the route's `fieldRules`). */
export async function campaignFieldErrors(
  db: Db,
  input: Unchecked<CampaignInput>,
  platformTimeZone: string,
): Promise<FieldError[]> {
  return (await checkCampaign(db, input, platformTimeZone)).problems;
}

/** Creates a campaign awaiting moderation (status 0); answers it with its (empty) statistics. */
export async function createCampaign(
  db: Db,
  advertiserId: number,
  input: CampaignInput,
  now: Date,
  platformTimeZone: string,
): Promise<Campaign> {
  const id = await inTransaction(db, async (trx) => {
    const { problems, checked } = await checkCampaign(trx, input, platformTimeZone);
    if (checked === undefined) throw validationFailed(problems);
    const campaign: NewCampaign = {
      advertiserId,
      title: input.title.trim(),
      categoryId: input.categoryId,
      geo: checked.geo,
      isRetarget: input.isRetarget ?? false,
      active: input.active ?? true,
      dailyBudgetMicros: checked.dailyBudgetMicros,
      dailyClickLimit: input.dailyClickLimit ?? 0,
      delivery: checked.delivery,
      control: checked.control,
      now,
    };
    return insertCampaign(trx, campaign);
  });
  return (await getCampaignWithStats(db, advertiserId, id, LIFETIME, 0)).campaign;
}

/**
 * Switches a campaign on/off, archives or restores it, sets or clears its frequency cap,
 * schedule, time zone, flight dates, lifetime budget, pacing, targets and site lists; answers it
 * with its lifetime statistics.
 */
export async function changeCampaign(
  db: Db,
  advertiserId: number,
  id: number,
  change: CampaignChange,
  now: Date,
  platformTimeZone: string,
): Promise<Campaign> {
  if (Object.values(change).every((value) => value === undefined)) {
    throw invalidField('active', 'Give at least one field to change.');
  }
  await inTransaction(db, (trx) => applyCampaignChange(trx, advertiserId, id, change, now, platformTimeZone));
  return (await getCampaignWithStats(db, advertiserId, id, LIFETIME, 0)).campaign;
}

/**
 * One campaign's change inside the caller's transaction (a single change, or one of a bulk
 * change): 404 when it is not the advertiser's, 422 when a field breaks a rule, naming the field
 * with `prefix` (a bulk change's `ids[n].`).
 */
export async function applyCampaignChange(
  trx: Db,
  advertiserId: number,
  id: number,
  change: CampaignChange,
  now: Date,
  platformTimeZone: string,
): Promise<void> {
  const row = await requireCampaign(trx, advertiserId, id);
  const problems: FieldError[] = [];
  const delivery = checkDelivery(change, problems);
  const control = checkControl(change, clockOf(delivery, row.time_zone, platformTimeZone), problems);
  const startsAt = control.starts_at === undefined ? row.starts_at : control.starts_at;
  const endsAt = control.ends_at === undefined ? row.ends_at : control.ends_at;
  if (problems.length === 0 && startsAt !== null && endsAt !== null && new Date(startsAt) >= new Date(endsAt)) {
    problems.push({
      field: control.ends_at === undefined ? 'startsAt' : 'endsAt',
      message: 'The start must come before the end.',
    });
  }
  const dailyBudgetMicros = dailyBudgetOf(change.dailyBudget);
  if (dailyBudgetMicros !== undefined && typeof dailyBudgetMicros !== 'number') problems.push(dailyBudgetMicros);
  const description = await checkDescriptionChange(trx, id, change, row, problems);
  if (problems.length > 0) throw validationFailed(problems);
  const limits = {
    ...(typeof dailyBudgetMicros === 'number' ? { daily_budget_micros: dailyBudgetMicros } : {}),
    ...(change.dailyClickLimit === undefined ? {} : { daily_click_limit: change.dailyClickLimit }),
  };
  await updateCampaignFlags(trx, id, { active: change.active, archived: change.archived }, delivery, now, {
    ...control,
    ...limits,
  });
  if (Object.keys(description).length > 0) await updateCampaignDescription(trx, id, description, now);
}

/**
 * The rules of a new title, category and countries, against the campaign: the columns to write
 * (only what was sent), or the 422 entries added to `problems`.
 */
async function checkDescriptionChange(
  trx: Db,
  id: number,
  change: CampaignChange,
  row: CampaignRecord,
  problems: FieldError[],
): Promise<{ title?: string; category_id?: number; geo?: string[] }> {
  const columns: { title?: string; category_id?: number; geo?: string[] } = {};
  if (change.title !== undefined) {
    if (change.title.trim() === '') problems.push({ field: 'title', message: 'Must not be empty.' });
    else columns.title = change.title.trim();
  }
  if (change.categoryId !== undefined && change.categoryId !== row.category_id) {
    if (!(await isRootCategory(trx, change.categoryId))) {
      problems.push({ field: 'category_id', message: 'Must be the id of a root category (GET /advertiser/categories).' });
    } else columns.category_id = change.categoryId;
  }
  if (change.geo !== undefined) {
    const geo = checkGeo(change.geo);
    if (!Array.isArray(geo)) problems.push(geo);
    // Ads of a campaign aimed at Thailand may carry a 100-character text; leaving Thailand would break them.
    else if (row.geo.includes('TH') && !geo.includes('TH') && (await longestOfferDescription(trx, id)) > DESCRIPTION_LIMIT) {
      problems.push({
        field: 'geo',
        message: `An ad of this campaign has a text over ${DESCRIPTION_LIMIT} characters, allowed only when it targets Thailand (TH): shorten it first.`,
      });
    } else columns.geo = geo;
  }
  return columns;
}

/** A copy of a campaign row titled "… (copy)", awaiting moderation (a duplicate's first step); answers its id. */
export function copyCampaign(trx: Db, original: CampaignRecord, now: Date): Promise<number> {
  return insertCampaignCopy(trx, original, `${original.title} (copy)`.slice(0, 255), now);
}

/** Which campaigns a list shows by their kind: `type` 1 retargeting, 2 standard; `archived` 0 includes archived ones. */
export interface CampaignSelection {
  type?: number;
  archived?: number;
}

/**
 * The ads of a campaign with their statistics, selected by their campaign as on the campaign
 * list: the ads of an archived campaign are listed only with archived=0, those of the other type not at all.
 */
export async function offersOfCampaign(
  db: Db,
  campaign: CampaignRecord,
  selection: CampaignSelection,
  period: Period,
  targetId: TargetId,
) {
  const typeMatches = selection.type === undefined || (selection.type === 1) === campaign.is_retarget;
  const archiveMatches = selection.archived === 0 || !campaign.archived;
  return offersWithTotals(db, typeMatches && archiveMatches ? campaign.id : undefined, period, targetId);
}

/** `id` and `filter[id]` both select campaigns by id; given both, a campaign must be in both lists. */
export function selectedCampaignIds(id: string | undefined, filterId: string | undefined): number[] | undefined {
  const fromFilter = readIdList(filterId, 'filter[id]');
  const fromQuery = readIdList(id, 'id');
  return fromQuery && fromFilter ? fromQuery.filter((campaignId) => fromFilter.includes(campaignId)) : (fromQuery ?? fromFilter);
}

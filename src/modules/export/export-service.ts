import type { Db } from '../../db/database.ts';
import { invalidField, notFound } from '../../errors.ts';
import { ownCampaignIds } from '../advertiser/index.ts';
import { type LedgerPeriod, listLedgerEntries } from '../ledger/index.ts';
import type { Period } from '../statistics/index.ts';
import { DEVICES, dayOf, readIdList } from '../statistics/index.ts';
import {
  ADVERTISER_SUMS,
  clickExportPage,
  dayStart,
  GROUPINGS,
  type Grouping,
  type Owner,
  type PlaceNames,
  PUBLISHER_SUMS,
  type SumColumn,
  statsDaySpan,
  statsExportPage,
} from './export-repository.ts';
import type { FileColumn, FileRow } from './table-file.ts';

/** Rows per database page and per Parquet row group: what memory holds at a time. */
export const EXPORT_PAGE_ROWS = 5000;

const DEVICE_NAMES = new Map<number, string>(Object.entries(DEVICES).map(([name, id]) => [id, name]));

/** Groupings a publisher may ask for: its own sites' places, not advertisers' campaigns and ads. */
const PUBLISHER_GROUPINGS: readonly Grouping[] = ['day', 'site', 'block', 'device', 'country'];

/**
 * Reads `groupBy` (comma-separated, any order, default `day`) into the export's canonical order:
 * day, campaign, ad, site, block, device, country. Unknown or forbidden names are a 422.
 */
export function readGroupings(text: string | undefined, owner: Owner): Grouping[] {
  const allowed = 'advertiserId' in owner ? GROUPINGS : PUBLISHER_GROUPINGS;
  const names = (text ?? 'day')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(allowed as readonly string[]).includes(name));
  if (unknown.length > 0) throw invalidField('groupBy', `Unknown grouping ${unknown.join(', ')}; use ${allowed.join(', ')}.`);
  return GROUPINGS.filter((grouping) => names.includes(grouping));
}

/**
 * Reads `campaignIds` (comma-separated; malformed: a 422 naming the field) into the campaigns an
 * advertiser's export is limited to; undefined when absent: every campaign. An id that is not
 * one of the advertiser's campaigns is a 404, as the statistics filters answer, so an export
 * never silently leaves out what was asked for.
 */
export async function readCampaignFilter(
  db: Db,
  advertiserId: number,
  text: string | undefined,
): Promise<readonly number[] | undefined> {
  const campaignIds = readIdList(text, 'campaignIds');
  if (campaignIds === undefined) return undefined;
  const own = await ownCampaignIds(db, advertiserId, campaignIds);
  if (own.length !== campaignIds.length) throw notFound('Campaign');
  return campaignIds;
}

const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/**
 * The period with open ends closed: from the first day there is, up to today (platform time zone).
 * An end after today is today: nothing happened later, and the day after 9999-12-31 is no date
 * the database can read.
 */
function closedPeriod(period: Period, today: string): { from: string; to: string } {
  return { from: period.from ?? '1970-01-01', to: period.to === undefined || period.to > today ? today : period.to };
}

export interface StatisticsExport {
  columns: FileColumn[];
  pages: AsyncIterable<FileRow[]>;
}

/**
 * The file's name of each summed rollup column: money without `_micros` (the file writes it in
 * currency units), a publisher's income as the statistics API calls it.
 */
const SUM_NAMES: Record<SumColumn, string> = {
  served: 'served',
  views: 'views',
  clicks: 'clicks',
  spend_micros: 'spend',
  conversions_purchase: 'conversions_purchase',
  conversions_registration: 'conversions_registration',
  conversions_intermediate: 'conversions_intermediate',
  refunded_clicks: 'refunded_clicks',
  refunded_spend_micros: 'refunded_spend',
  publisher_income_micros: 'income',
  refunded_publisher_income_micros: 'refunded_income',
  invalid_clicks: 'invalid_clicks',
};
const isMoney = (column: SumColumn) => column.endsWith('_micros');

/** The name column beside each grouping that has one: the place's title, or a site's domain. */
const NAME_COLUMNS: Partial<Record<Grouping, keyof PlaceNames>> = {
  campaign: 'campaign_title',
  ad: 'ad_title',
  site: 'site_url',
  block: 'block_title',
};
const fileNameOf = (column: keyof PlaceNames) => (column === 'site_url' ? 'site_domain' : column);

/** A site's domain from its address (stored normalised: `https://host/path`). */
function domainOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/**
 * The name of a place as the file shows it. A place whose row is gone shows `(deleted)`, block 0
 * (traffic of no block) `(none)`: the id beside it still joins the row to the API's figures.
 */
function placeName(column: keyof PlaceNames, id: number, name: string | null | undefined): string {
  if (name === null || name === undefined) return id === 0 ? '(none)' : '(deleted)';
  return column === 'site_url' ? domainOf(name) : name;
}

/** The places' names of a click or a rollup row, by the file's column names. */
function namesOf(groups: readonly Grouping[], ids: Partial<Record<Grouping, number>>, names: Partial<PlaceNames>): FileRow {
  const out: FileRow = {};
  for (const group of groups) {
    const column = NAME_COLUMNS[group];
    if (column !== undefined) out[fileNameOf(column)] = placeName(column, ids[group] ?? 0, names[column]);
  }
  return out;
}

/** The columns of a statistics file: each grouping (and its name, if it has one), then the sums. */
function statisticsColumns(groups: readonly Grouping[], sums: readonly SumColumn[]): FileColumn[] {
  return [
    ...groups.flatMap((group): FileColumn[] => {
      const id: FileColumn = {
        name: group,
        type: group === 'day' || group === 'device' || group === 'country' ? 'text' : 'integer',
      };
      const name = NAME_COLUMNS[group];
      return name === undefined ? [id] : [id, { name: fileNameOf(name), type: 'text' }];
    }),
    ...sums.map((column): FileColumn => ({ name: SUM_NAMES[column], type: isMoney(column) ? 'money' : 'integer' })),
  ];
}

/**
 * The owner's statistics grouped as asked, a page at a time, with the names of the campaigns, ads,
 * sites and blocks read in each page's statement. With `day` among the groupings the export walks
 * the period a day at a time (each day an index range of the rollup), otherwise it pages through
 * the grouped period by keyset; either way at most one page is in memory.
 */
export function statisticsExport(
  db: Db,
  query: { owner: Owner; period: Period; groups: Grouping[]; timeZone: string; now: number; pageRows?: number },
): StatisticsExport {
  const limit = query.pageRows ?? EXPORT_PAGE_ROWS;
  const sums = 'advertiserId' in query.owner ? ADVERTISER_SUMS : PUBLISHER_SUMS;
  const columns = statisticsColumns(query.groups, sums);
  const period = closedPeriod(query.period, dayOf(query.now, query.timeZone));
  const toFileRow = (row: Awaited<ReturnType<typeof statsExportPage>>[number]): FileRow => {
    const out: FileRow = {};
    const ids: Partial<Record<Grouping, number>> = {};
    for (const group of query.groups) {
      const value = row[group] ?? '';
      if (group === 'device') out[group] = DEVICE_NAMES.get(Number(value)) ?? String(value);
      else if (group === 'day' || group === 'country') out[group] = String(value);
      else {
        ids[group] = Number(value);
        out[group] = Number(value);
      }
    }
    Object.assign(out, namesOf(query.groups, ids, row));
    for (const column of sums) out[SUM_NAMES[column]] = Number(row[column] ?? 0);
    return out;
  };
  async function* slice(from: string, to: string): AsyncGenerator<FileRow[]> {
    let after: (string | number)[] | undefined;
    for (;;) {
      const rows = await statsExportPage(db, {
        owner: query.owner,
        period: { from, to },
        groups: query.groups,
        sums,
        after,
        limit,
      });
      if (rows.length > 0) yield rows.map(toFileRow);
      const last = rows.at(-1);
      if (rows.length < limit || last === undefined || query.groups.length === 0) return;
      after = query.groups.map((group) => last[group] ?? '');
    }
  }
  async function* pages(): AsyncGenerator<FileRow[]> {
    const span = await statsDaySpan(db, query.owner, period);
    if (span === undefined) return;
    if (!query.groups.includes('day')) {
      yield* slice(span.first, span.last);
      return;
    }
    for (let day = span.first; day <= span.last; day = nextDay(day)) yield* slice(day, day);
  }
  return { columns, pages: pages() };
}

const CLICK_PLACES: readonly Grouping[] = ['campaign', 'ad', 'site', 'block'];

export const CLICK_COLUMNS: FileColumn[] = [
  { name: 'time', type: 'text' },
  { name: 'click_id', type: 'id' },
  ...statisticsColumns(CLICK_PLACES, []),
  { name: 'device', type: 'text' },
  { name: 'country', type: 'text' },
  { name: 'outcome', type: 'text' },
  { name: 'reason', type: 'text' },
  { name: 'charge', type: 'money' },
];

/**
 * The advertiser's settled clicks of the period (of `campaignIds` only, when given), oldest first: each with where it came from (ids and names), its
 * outcome (`billed` or `refused`), the reason code of a refusal (`bot`: the fraud filter, `limit`:
 * a daily click or budget limit, `funds`: the balance did not cover it) and what it was charged.
 */
export async function clicksExport(
  db: Db,
  query: { advertiserId: number; campaignIds?: readonly number[] | undefined; period: Period; timeZone: string; now: number },
): Promise<AsyncIterable<FileRow[]>> {
  const period = closedPeriod(query.period, dayOf(query.now, query.timeZone));
  const from = await dayStart(db, period.from, query.timeZone);
  const to = await dayStart(db, nextDay(period.to), query.timeZone);
  async function* pages(): AsyncGenerator<FileRow[]> {
    let after: { at: Date; id: string } | undefined;
    for (;;) {
      const rows = await clickExportPage(db, {
        advertiserId: query.advertiserId,
        campaignIds: query.campaignIds,
        from,
        to,
        after,
        limit: EXPORT_PAGE_ROWS,
      });
      if (rows.length > 0) {
        yield rows.map((row) => ({
          time: new Date(row.created_at).toISOString(),
          click_id: row.click_id,
          campaign: row.campaign_id,
          ad: row.offer_id,
          site: row.site_id,
          block: row.block_id,
          ...namesOf(CLICK_PLACES, { campaign: row.campaign_id, ad: row.offer_id, site: row.site_id, block: row.block_id }, row),
          device: DEVICE_NAMES.get(row.device) ?? String(row.device),
          country: row.country,
          outcome: row.status === 'billed' ? 'billed' : 'refused',
          reason: row.status === 'billed' ? '' : row.status,
          charge: Number(row.charge_micros),
        }));
      }
      const last = rows.at(-1);
      if (rows.length < EXPORT_PAGE_ROWS || last === undefined) return;
      after = { at: new Date(last.created_at), id: last.click_id };
    }
  }
  return pages();
}

/** The columns of a statement of balance moves. */
export const LEDGER_COLUMNS: readonly FileColumn[] = [
  { name: 'date', type: 'text' },
  { name: 'kind', type: 'text' },
  { name: 'amount', type: 'money' },
  { name: 'balance', type: 'money' },
  { name: 'reference', type: 'id' },
  { name: 'comment', type: 'text' },
];

const STATEMENT_PAGE = 1000;

/** An account's balance moves of a period, oldest first, a page at a time, amounts in currency units, exact. */
export async function* ledgerStatement(db: Db, accountId: number, period: LedgerPeriod): AsyncGenerator<FileRow[]> {
  for (let offset = 0; ; offset += STATEMENT_PAGE) {
    const { rows } = await listLedgerEntries(db, accountId, STATEMENT_PAGE, offset, period, 'asc');
    if (rows.length > 0) {
      yield rows.map((row) => ({
        date: row.created_at.toISOString(),
        kind: row.kind,
        // Micros, written as exact currency units (a publisher's share has up to 6 fraction digits).
        amount: Number(row.amount_micros),
        balance: Number(row.balance_after_micros),
        reference: row.reference ?? '',
        comment: row.comment,
      }));
    }
    if (rows.length < STATEMENT_PAGE) return;
  }
}

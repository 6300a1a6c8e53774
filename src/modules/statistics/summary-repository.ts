import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Period } from './period.ts';
import { ROLLUP_COUNTERS, type RollupCounter } from './record-events.ts';
import { SPANS, type SummaryShape } from './summaries.ts';

/** An inclusive range of days; an open end is unbounded. */
export interface DayRange {
  from: string | undefined;
  to: string | undefined;
}

/** How a period is read: its whole calendar months, and the days of the months it covers in part. */
export interface PeriodSpans {
  /** First days of the first and last whole month (open ends unbounded); undefined when there is none. */
  months: DayRange | undefined;
  /** At most two ranges of days: the partial first month and the partial last month. */
  days: { from: string; to: string }[];
}

const pad = (value: number) => String(value).padStart(2, '0');
const monthStart = (day: string) => `${day.slice(0, 8)}01`;
function lastDayOfMonth(day: string): string {
  const year = Number(day.slice(0, 4));
  const month = Number(day.slice(5, 7));
  return `${day.slice(0, 8)}${pad(new Date(Date.UTC(year, month, 0)).getUTCDate())}`;
}
function shiftMonth(first: string, months: number): string {
  const date = new Date(Date.UTC(Number(first.slice(0, 4)), Number(first.slice(5, 7)) - 1 + months, 1));
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-01`;
}

/**
 * Splits a period into whole months and the days at its edges, so that a year is read as 12 month
 * rows (plus at most ~60 day rows) per key, whatever the length of the history behind it.
 */
export function periodSpans({ from, to }: Period): PeriodSpans {
  const days: { from: string; to: string }[] = [];
  const head = from !== undefined && !from.endsWith('-01');
  let firstMonth: string | undefined;
  if (from !== undefined) {
    firstMonth = head ? shiftMonth(monthStart(from), 1) : from;
    if (head) days.push({ from, to: to !== undefined && to < lastDayOfMonth(from) ? to : lastDayOfMonth(from) });
  }
  let lastMonth: string | undefined;
  if (to !== undefined) {
    const whole = to === lastDayOfMonth(to);
    lastMonth = whole ? monthStart(to) : shiftMonth(monthStart(to), -1);
    const sameMonthAsHead = head && from !== undefined && monthStart(from) === monthStart(to);
    if (!whole && !sameMonthAsHead) {
      days.push({ from: from !== undefined && from > monthStart(to) ? from : monthStart(to), to });
    }
  }
  const months =
    firstMonth !== undefined && lastMonth !== undefined && firstMonth > lastMonth
      ? undefined
      : { from: firstMonth, to: lastMonth };
  return { months, days };
}

export type SummaryKey = 'key_a' | 'key_b' | 'key_c';

export interface SummaryQuery {
  shape: SummaryShape;
  keyA: readonly number[];
  keyB?: readonly number[];
  keyC?: readonly number[];
  period: Period;
  /** `total`: one sum over the period; `day`: per day; `hour`: per hour (day and hour). */
  grain: 'total' | 'day' | 'hour';
  groupBy: readonly SummaryKey[];
}

export type SummaryTotals = { key_a: number; key_b: number; key_c: number; day: string; hour: number } & Record<
  RollupCounter,
  number
>;

const dayBetween = (range: DayRange) => {
  const parts = [];
  if (range.from !== undefined) parts.push(sql`day >= ${range.from}::date`);
  if (range.to !== undefined) parts.push(sql`day <= ${range.to}::date`);
  return parts;
};

/**
 * Sums stats_rollups for keys of one shape over a period, per the given keys (and per day or hour
 * with that grain), ordered by them. Each part of the period is its own range scan of the primary
 * key (shape, key_a, span, day, ...), so the rows read are the rows summed.
 */
export async function sumSummaries(db: Db, query: SummaryQuery): Promise<SummaryTotals[]> {
  if (query.keyA.length === 0 || query.keyB?.length === 0 || query.keyC?.length === 0) return [];
  const keys = [sql`shape = ${query.shape}`, sql`key_a = ANY(${[...query.keyA]}::integer[])`];
  if (query.keyB !== undefined) keys.push(sql`key_b = ANY(${[...query.keyB]}::integer[])`);
  if (query.keyC !== undefined) keys.push(sql`key_c = ANY(${[...query.keyC]}::integer[])`);
  const part = (span: number, range: DayRange) =>
    sql`SELECT * FROM stats_rollups WHERE ${sql.join([...keys, sql`span = ${span}`, ...dayBetween(range)], sql` AND `)}`;
  const parts: RawBuilder<unknown>[] = [];
  if (query.grain === 'total') {
    const spans = periodSpans(query.period);
    if (spans.months !== undefined) parts.push(part(SPANS.month, spans.months));
    for (const range of spans.days) parts.push(part(SPANS.day, range));
  } else parts.push(part(query.grain === 'day' ? SPANS.day : SPANS.hour, query.period));
  if (parts.length === 0) return [];
  const groups = [...query.groupBy.map((key) => sql.ref(key))];
  if (query.grain !== 'total') groups.push(sql.ref('day'), sql.ref('hour'));
  const selected = [
    ...query.groupBy.map((key) => sql`${sql.ref(key)}`),
    ...(query.grain === 'total' ? [] : [sql`to_char(day, 'YYYY-MM-DD') AS day`, sql`hour`]),
    ...ROLLUP_COUNTERS.map((counter) => sql`coalesce(sum(${sql.ref(counter)}), 0) AS ${sql.ref(counter)}`),
  ];
  const grouping = groups.length === 0 ? sql`` : sql`GROUP BY ${sql.join(groups)} ORDER BY ${sql.join(groups)}`;
  const result = await sql<Record<string, unknown>>`
    SELECT ${sql.join(selected)} FROM (${sql.join(parts, sql` UNION ALL `)}) AS parts ${grouping}`.execute(db);
  return result.rows.map((row) => {
    const totals = {
      key_a: Number(row.key_a ?? 0),
      key_b: Number(row.key_b ?? 0),
      key_c: Number(row.key_c ?? 0),
      day: String(row.day ?? ''),
      hour: Number(row.hour ?? 0),
    } as SummaryTotals;
    for (const counter of ROLLUP_COUNTERS) totals[counter] = Number(row[counter] ?? 0);
    return totals;
  });
}

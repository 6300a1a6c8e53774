import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Period } from './period.ts';
import { ROLLUP_COUNTERS, type RollupCounter } from './record-events.ts';
import { planPeriod, SPANS } from './span-plan.ts';
import type { SummaryShape } from './summaries.ts';

/** An inclusive range of days; an open end is unbounded. */
interface DayRange {
  from: string | undefined;
  to: string | undefined;
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
  /**
   * The platform's today, where summary rows stop existing: only how a total is read depends on
   * it, never its value. Without it the period's end stands in (periods mostly end today), or
   * the UTC date for an open end.
   */
  today?: string;
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
 * with that grain), ordered by them. A total is a signed sum of runs of day, dekad, month, year
 * and lifetime rows (planPeriod); each run is its own range scan of the primary key (shape, key_a,
 * span, day, ...), so the rows read are the rows summed, a few per key wherever the period falls.
 */
export async function sumSummaries(db: Db, query: SummaryQuery): Promise<SummaryTotals[]> {
  if (query.keyA.length === 0 || query.keyB?.length === 0 || query.keyC?.length === 0) return [];
  const keys = [sql`shape = ${query.shape}`, sql`key_a = ANY(${[...query.keyA]}::integer[])`];
  if (query.keyB !== undefined) keys.push(sql`key_b = ANY(${[...query.keyB]}::integer[])`);
  if (query.keyC !== undefined) keys.push(sql`key_c = ANY(${[...query.keyC]}::integer[])`);
  const total = query.grain === 'total';
  const columns = (sign: 1 | -1) => [
    sql`key_a, key_b, key_c, day, hour`,
    ...ROLLUP_COUNTERS.map((counter) => (sign === 1 ? sql.ref(counter) : sql`-${sql.ref(counter)} AS ${sql.ref(counter)}`)),
  ];
  const part = (span: number, range: DayRange, sign: 1 | -1 = 1) =>
    sql`SELECT ${sql.join(columns(sign))} FROM stats_rollups WHERE ${sql.join([...keys, sql`span = ${span}`, ...dayBetween(range)], sql` AND `)}`;
  const { from, to } = query.period;
  const terms = total ? planPeriod(from, to, query.today ?? to ?? new Date().toISOString().slice(0, 10)) : [];
  const parts = total
    ? terms.map((term) => part(term.span, term, term.sign))
    : [part(query.grain === 'day' ? SPANS.day : SPANS.hour, query.period)];
  if (parts.length === 0) return [];
  const groups = [...query.groupBy.map((key) => sql.ref(key))];
  if (!total) groups.push(sql.ref('day'), sql.ref('hour'));
  const selected = [
    ...query.groupBy.map((key) => sql`${sql.ref(key)}`),
    ...(total ? [] : [sql`to_char(day, 'YYYY-MM-DD') AS day`, sql`hour`]),
    ...ROLLUP_COUNTERS.map((counter) => sql`coalesce(sum(${sql.ref(counter)}), 0) AS ${sql.ref(counter)}`),
  ];
  // A key whose only rows are outside the period (in a year row, less its months) sums to zero:
  // it had no traffic in the period and stays out of the answer, as a direct sum would leave it.
  const subtracts = terms.some((term) => term.sign === -1);
  const having = subtracts
    ? sql` HAVING ${sql.join(
        ROLLUP_COUNTERS.map((counter) => sql`sum(${sql.ref(counter)}) <> 0`),
        sql` OR `,
      )}`
    : sql``;
  const grouping = groups.length === 0 ? sql`` : sql`GROUP BY ${sql.join(groups)}${having} ORDER BY ${sql.join(groups)}`;
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

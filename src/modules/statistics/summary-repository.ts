import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import type { Period } from './period.ts';
import { planPeriod, SPANS } from './span-plan.ts';
import type { SummaryShape } from './summaries.ts';
import { ROLLUP_COUNTERS, type RollupCounter } from './vocabulary.ts';

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

/** The keys each shape's rows are told apart by; the others are always 0 (summaries.ts). */
const SHAPE_KEYS: Record<SummaryShape, readonly SummaryKey[]> = {
  1: ['key_a'],
  2: ['key_a', 'key_b'],
  3: ['key_a', 'key_b', 'key_c'],
  4: ['key_a', 'key_b'],
  5: ['key_a', 'key_b'],
  6: ['key_a'],
  7: ['key_a', 'key_b'],
};

const KEY_VALUES = { key_a: 'keyA', key_b: 'keyB', key_c: 'keyC' } as const;

/**
 * Whether the rows of one span already are the answer's rows: every key of the shape is either
 * grouped by or held to one value, so no two rows share a group (the primary key is the shape,
 * its keys, span, day and hour) and nothing needs summing.
 */
function rowsAreGroups(query: SummaryQuery): boolean {
  if (query.grain === 'total') return false;
  return SHAPE_KEYS[query.shape].every((key) => query.groupBy.includes(key) || query[KEY_VALUES[key]]?.length === 1);
}

/** The answer as one text: rows separated by `;`, each the grouped keys, day and hour, the counters, by `,`. */
type AnswerText = { answer: string | null };

/**
 * Sums stats_rollups for keys of one shape over a period, per the given keys (and per day or hour
 * with that grain), ordered by them. A total is a signed sum of runs of day, dekad, month, year
 * and lifetime rows (planPeriod); each run is its own range scan of the primary key (shape, key_a,
 * span, day, ...), so the rows read are the rows summed, a few per key wherever the period falls.
 *
 * Sums are int8_total (migration 0540: exact bigint, no numeric per group), and the answer comes
 * back as one text of comma-separated rows: a year of days is one value to read instead of 365
 * rows of 16 fields each, whose parsing was most of the server's CPU in a statistics answer. The
 * statement is prepared: planning a union of span runs cost more than executing it (docs/adr/0024).
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
  const order = [...query.groupBy.map((key) => sql.ref(key))];
  if (!total) order.push(sql.ref('day'), sql.ref('hour'));
  // One concat_ws per row rather than a chain of `||` (each a cast and a new text): a fifth less
  // of PostgreSQL's time for the site statistics' 500 rows (docs/adr/0024). No field is ever
  // null, which concat_ws would skip.
  const line = sql`concat_ws(',', ${sql.join([
    ...query.groupBy.map((key) => sql.ref(key)),
    ...(total ? [] : [sql`to_char(day, 'YYYY-MM-DD')`, sql.ref('hour')]),
    ...ROLLUP_COUNTERS.map((counter) => sql.ref(counter)),
  ])})`;
  const ordered = order.length === 0 ? sql`` : sql` ORDER BY ${sql.join(order)}`;
  const answer = (source: RawBuilder<unknown>) =>
    sql<AnswerText>`SELECT string_agg(${line}, ';'${ordered}) AS answer FROM (${source}) AS answer_rows`;
  let statement: RawBuilder<AnswerText>;
  if (rowsAreGroups(query)) {
    statement = answer(parts[0] as RawBuilder<unknown>);
  } else {
    // A key whose only rows are outside the period (in a year row, less its months) sums to zero:
    // it had no traffic in the period and stays out of the answer, as a direct sum would leave it.
    const having = terms.some((term) => term.sign === -1)
      ? sql` HAVING ${sql.join(
          ROLLUP_COUNTERS.map((counter) => sql`int8_total(${sql.ref(counter)}) <> 0`),
          sql` OR `,
        )}`
      : sql``;
    const grouping = order.length === 0 ? sql`` : sql` GROUP BY ${sql.join(order)}${having}`;
    const sums = ROLLUP_COUNTERS.map((counter) => sql`int8_total(${sql.ref(counter)}) AS ${sql.ref(counter)}`);
    statement = answer(
      sql`SELECT ${sql.join([...order, ...sums])} FROM (${sql.join(parts, sql` UNION ALL `)}) AS parts${grouping}`,
    );
  }
  const text = (await prepared(statement).execute(db)).rows[0]?.answer;
  return text == null ? [] : text.split(';').map((row) => readAnswerRow(row, query.groupBy, !total));
}

/** One row of the answer's text, its fields in the order sumSummaries wrote them. */
function readAnswerRow(row: string, groupBy: readonly SummaryKey[], timed: boolean): SummaryTotals {
  const fields = row.split(',');
  let index = 0;
  const totals = { key_a: 0, key_b: 0, key_c: 0, day: '', hour: 0 } as SummaryTotals;
  for (const key of groupBy) totals[key] = Number(fields[index++]);
  if (timed) {
    totals.day = fields[index++] as string;
    totals.hour = Number(fields[index++]);
  }
  for (const counter of ROLLUP_COUNTERS) totals[counter] = Number(fields[index++]);
  return totals;
}

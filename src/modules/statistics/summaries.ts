import { type RawBuilder, sql } from 'kysely';
import type { Db, NamedWrite } from '../../db/database.ts';
import { ALL_START, enclosingSpans, SPANS } from './span-plan.ts';
import { eventCounters, ROLLUP_COUNTERS, type RollupCounter, type TrafficEvent } from './vocabulary.ts';

export { SPANS };

/**
 * The shapes of stats_rollups (migrations 0410 and 0510): which keys a summary row is summed by. The
 * publisher's rows are derived in SQL from the block rows (the site's publisher), the others here.
 */
export const SUMMARY_SHAPES = {
  /** key_a campaign. */
  campaign: 1,
  /** key_a campaign, key_b ad. */
  offer: 2,
  /** key_a campaign, key_b site, key_c block. */
  campaignPlace: 3,
  /** key_a campaign, key_b device. */
  campaignDevice: 4,
  /** key_a site, key_b block. */
  block: 5,
  /** key_a publisher. */
  publisher: 6,
  /** key_a campaign, key_b site: a campaign's site statistics without summing its blocks. */
  campaignSite: 7,
} as const;
export type SummaryShape = (typeof SUMMARY_SHAPES)[keyof typeof SUMMARY_SHAPES];

/** Shapes that also get hourly rows: those the hourly statistics endpoints read. */
const HOURLY_SHAPES: ReadonlySet<number> = new Set([SUMMARY_SHAPES.campaign, SUMMARY_SHAPES.offer, SUMMARY_SHAPES.block]);

type SummaryRow = {
  shape: number;
  key_a: number;
  span: number;
  day: string;
  hour: number;
  key_b: number;
  key_c: number;
} & Record<RollupCounter, number>;

interface LocalTime {
  format: Intl.DateTimeFormat;
  /** The last minute asked for and its answer: zone offsets are whole minutes. */
  minute: number;
  day: string;
  hour: number;
}

const localTimes = new Map<string, LocalTime>();

/** The calendar day (YYYY-MM-DD) and hour (0–23) of an instant in a time zone. */
export function localHourOf(epochMs: number, timeZone: string): { day: string; hour: number } {
  let local = localTimes.get(timeZone);
  if (local === undefined) {
    local = {
      format: new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        hourCycle: 'h23',
      }),
      minute: Number.NaN,
      day: '',
      hour: 0,
    };
    localTimes.set(timeZone, local);
  }
  const minute = Math.floor(epochMs / 60_000);
  if (minute !== local.minute) {
    const parts = local.format.formatToParts(epochMs);
    const part = (type: string) => parts.find((entry) => entry.type === type)?.value ?? '';
    local.day = `${part('year')}-${part('month')}-${part('day')}`;
    local.hour = Number(part('hour'));
    local.minute = minute;
  }
  return { day: local.day, hour: local.hour };
}

/** Events of one place (ad, block, device) in one local hour, summed: the unit every summary row is made of. */
interface PlaceHour {
  event: TrafficEvent;
  day: string;
  hour: number;
  counters: Record<RollupCounter, number>;
}

/**
 * Sums events by place and local hour first: every summary row adds whole place-hours, and a
 * settlement's batch of clicks falls on far fewer place-hours than it has events, so the expansion
 * into every shape and span (33 rows each) runs per place-hour rather than per event.
 */
function placeHours(events: readonly TrafficEvent[], timeZone: string): Iterable<PlaceHour> {
  const groups = new Map<string, PlaceHour>();
  for (const event of events) {
    const { day, hour } = localHourOf(event.at, timeZone);
    const key = `${day}|${hour}|${event.campaignId}|${event.offerId}|${event.siteId}|${event.blockId}|${event.device}`;
    const counters = eventCounters(event);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { event, day, hour, counters });
    else for (const counter of ROLLUP_COUNTERS) group.counters[counter] += counters[counter];
  }
  return groups.values();
}

/** Events summed per summary key (every shape but the publisher's, every span), sorted by key. */
export function summaryRows(events: readonly TrafficEvent[], timeZone: string): SummaryRow[] {
  const rows = new Map<string, SummaryRow>();
  const add = (
    shape: number,
    keys: [number, number, number],
    span: number,
    day: string,
    hour: number,
    counters: Record<RollupCounter, number>,
  ) => {
    const key = `${shape}|${keys[0]}|${span}|${day}|${hour}|${keys[1]}|${keys[2]}`;
    const row = rows.get(key);
    if (row === undefined) {
      rows.set(key, { shape, key_a: keys[0], span, day, hour, key_b: keys[1], key_c: keys[2], ...counters });
    } else for (const counter of ROLLUP_COUNTERS) row[counter] += counters[counter];
  };
  for (const { event, day, hour, counters } of placeHours(events, timeZone)) {
    const { dekad, month, year } = enclosingSpans(day);
    const shapes: [number, [number, number, number]][] = [
      [SUMMARY_SHAPES.campaign, [event.campaignId, 0, 0]],
      [SUMMARY_SHAPES.offer, [event.campaignId, event.offerId, 0]],
      [SUMMARY_SHAPES.campaignPlace, [event.campaignId, event.siteId, event.blockId]],
      [SUMMARY_SHAPES.campaignSite, [event.campaignId, event.siteId, 0]],
      [SUMMARY_SHAPES.campaignDevice, [event.campaignId, event.device, 0]],
      [SUMMARY_SHAPES.block, [event.siteId, event.blockId, 0]],
    ];
    for (const [shape, keys] of shapes) {
      add(shape, keys, SPANS.day, day, 0, counters);
      add(shape, keys, SPANS.dekad, dekad, 0, counters);
      add(shape, keys, SPANS.month, month, 0, counters);
      add(shape, keys, SPANS.year, year, 0, counters);
      add(shape, keys, SPANS.all, ALL_START, 0, counters);
      if (HOURLY_SHAPES.has(shape)) add(shape, keys, SPANS.hour, day, hour, counters);
    }
  }
  return [...rows.values()];
}

const COUNTER_NAMES = sql.join(ROLLUP_COUNTERS.map((counter) => sql.ref(counter)));
const KEY = sql`shape, key_a, span, day, hour, key_b, key_c`;

/**
 * The upsert that adds events to stats_rollups, for rollupWrites to run after the campaign
 * totals. The publisher's rows are the block rows summed per the site's publisher (a join on
 * sites); every row is then grouped and inserted in key order, so that writers lock rows in one
 * order and never deadlock. It writes only when `guard` holds.
 */
export function summaryWrite(events: readonly TrafficEvent[], timeZone: string, guard: RawBuilder<boolean>): RawBuilder<unknown> {
  const rows = summaryRows(events, timeZone);
  const column = <K extends keyof SummaryRow>(key: K) => rows.map((row) => row[key]);
  const sums = sql.join(ROLLUP_COUNTERS.map((counter) => sql`sum(r.${sql.ref(counter)})`));
  return sql`
    INSERT INTO stats_rollups AS s (${KEY}, ${COUNTER_NAMES})
    SELECT k.shape, k.key_a, r.span, r.day, r.hour, k.key_b, k.key_c, ${sums}
    FROM unnest(
      ${column('shape')}::smallint[], ${column('key_a')}::integer[], ${column('span')}::smallint[],
      ${column('day')}::date[], ${column('hour')}::smallint[], ${column('key_b')}::integer[], ${column('key_c')}::integer[],
      ${sql.join(ROLLUP_COUNTERS.map((counter) => sql`${column(counter)}::bigint[]`))}
    ) AS r(shape, key_a, span, day, hour, key_b, key_c, ${COUNTER_NAMES})
    LEFT JOIN sites p ON r.shape = ${SUMMARY_SHAPES.block} AND p.id = r.key_a
    CROSS JOIN LATERAL (VALUES
      (r.shape, r.key_a, r.key_b, r.key_c),
      (${SUMMARY_SHAPES.publisher}::smallint, p.publisher_id, 0, 0)
    ) AS k(shape, key_a, key_b, key_c)
    WHERE k.key_a IS NOT NULL AND ${guard}
    GROUP BY k.shape, k.key_a, r.span, r.day, r.hour, k.key_b, k.key_c
    ORDER BY k.shape, k.key_a, r.span, r.day, r.hour, k.key_b, k.key_c
    ON CONFLICT (${KEY}) DO UPDATE SET ${sql.join(
      ROLLUP_COUNTERS.map((counter) => sql`${sql.ref(counter)} = ${sql.ref(`s.${counter}`)} + ${sql.ref(`excluded.${counter}`)}`),
    )}`;
}

/** The named write of summaryWrite, for rollupWrites' list. */
export function summaryNamedWrite(events: readonly TrafficEvent[], timeZone: string, guard: RawBuilder<boolean>): NamedWrite {
  return { name: 'rollup_summaries', statement: summaryWrite(events, timeZone, guard) };
}

/**
 * Recomputes the day, dekad, month, year and lifetime summaries from stats_daily, for rollup rows
 * loaded into stats_daily directly (benchmark seeds). Hour rows cannot be derived from days and
 * are left as they are. One grouping per shape (the publisher's from the block rows), then each
 * coarser span from the one below it: each is a plain aggregate of few keys, many times faster
 * than one grouping of every shape at once.
 */
export async function rebuildSummaries(trx: Db): Promise<void> {
  const sums = sql.join(ROLLUP_COUNTERS.map((counter) => sql`sum(${sql.ref(counter)})`));
  const days = (shape: number, keyA: string, keyB: string, keyC: string) => sql`
    INSERT INTO stats_rollups (${KEY}, ${COUNTER_NAMES})
    SELECT ${shape}, ${sql.raw(keyA)}, ${SPANS.day}, day, 0, ${sql.raw(keyB)}, ${sql.raw(keyC)}, ${sums}
    FROM stats_daily GROUP BY ${sql.raw([keyA, 'day', keyB, keyC].filter((key) => key !== '0').join(', '))}`;
  const coarser = (span: number, from: number, start: RawBuilder<unknown>) => sql`
    INSERT INTO stats_rollups (${KEY}, ${COUNTER_NAMES})
    SELECT shape, key_a, ${span}, ${start}, 0, key_b, key_c, ${sums}
    FROM stats_rollups WHERE span = ${from}
    GROUP BY shape, key_a, ${start}, key_b, key_c`;
  await sql`DELETE FROM stats_rollups WHERE span <> ${SPANS.hour}`.execute(trx);
  await days(SUMMARY_SHAPES.campaign, 'campaign_id', '0', '0').execute(trx);
  await days(SUMMARY_SHAPES.offer, 'campaign_id', 'offer_id', '0').execute(trx);
  await days(SUMMARY_SHAPES.campaignPlace, 'campaign_id', 'site_id', 'block_id').execute(trx);
  await days(SUMMARY_SHAPES.campaignDevice, 'campaign_id', 'device::integer', '0').execute(trx);
  await days(SUMMARY_SHAPES.block, 'site_id', 'block_id', '0').execute(trx);
  await days(SUMMARY_SHAPES.campaignSite, 'campaign_id', 'site_id', '0').execute(trx);
  await sql`
    INSERT INTO stats_rollups (${KEY}, ${COUNTER_NAMES})
    SELECT ${SUMMARY_SHAPES.publisher}, p.publisher_id, ${SPANS.day}, r.day, 0, 0, 0, ${sums}
    FROM stats_rollups r JOIN sites p ON p.id = r.key_a
    WHERE r.shape = ${SUMMARY_SHAPES.block} AND r.span = ${SPANS.day}
    GROUP BY p.publisher_id, r.day`.execute(trx);
  await coarser(SPANS.dekad, SPANS.day, DEKAD_OF_DAY).execute(trx);
  await coarser(SPANS.month, SPANS.dekad, sql`date_trunc('month', day)::date`).execute(trx);
  await coarser(SPANS.year, SPANS.month, sql`date_trunc('year', day)::date`).execute(trx);
  await coarser(SPANS.all, SPANS.year, sql`${ALL_START}::date`).execute(trx);
}

/** The first day of a day's dekad (days 1–10, 11–20, 21 to the end of the month), in SQL. */
const DEKAD_OF_DAY = sql`(date_trunc('month', day)::date + CASE WHEN extract(day FROM day) <= 10 THEN 0 WHEN extract(day FROM day) <= 20 THEN 10 ELSE 20 END)`;

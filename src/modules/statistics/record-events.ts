import { type RawBuilder, sql } from 'kysely';
import type { Db, NamedWrite } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { rebuildSummaries, summaryNamedWrite } from './summaries.ts';
import { dayOf, eventCounters, ROLLUP_COUNTERS, type RollupCounter, type TrafficEvent } from './vocabulary.ts';

type RollupRow = {
  day: string;
  campaign_id: number;
  offer_id: number;
  site_id: number;
  block_id: number;
  device: number;
  country: string;
} & Record<RollupCounter, number>;

/**
 * Adds events to the daily rollup. Events with the same key are summed in memory first, then
 * each key is one upsert that adds to what the row already holds, so concurrent writers and
 * repeated batches are both safe. Run it inside the transaction that owns the events (a click's
 * billing, an impression batch) so statistics and money move together.
 */
export async function recordEvents(trx: Db, events: readonly TrafficEvent[], timeZone: string): Promise<void> {
  // One statement: every write but the last as a named CTE (the later ones read them by name).
  const writes = rollupWrites(events, timeZone);
  const last = writes.pop();
  if (last === undefined) return;
  const ctes = writes.map((write) => sql`${sql.id(write.name)} AS (${write.statement})`);
  await (ctes.length === 0 ? last.statement : sql`WITH ${sql.join(ctes)} ${last.statement}`).execute(trx);
}

/**
 * The statements that add events to the rollups, in the order they must run, for callers that
 * make them part of a larger statement (click billing puts them next to the ledger's, see
 * postLedgerChanges): the per-ad rows of `stats_daily`, then the campaign totals of
 * `stats_campaign_daily`, then the day, month and hour summaries of `stats_rollups`. Every writer
 * locks rollup rows in that order (and each table's rows sorted by key), so writers never deadlock. They write only when `onlyIf` holds. Empty when there
 * is nothing to write.
 */
export function rollupWrites(events: readonly TrafficEvent[], timeZone: string, onlyIf?: RawBuilder<boolean>): NamedWrite[] {
  const rows = rollupRows(events, timeZone);
  if (rows.length === 0) return [];
  const guard = onlyIf ?? sql<boolean>`true`;
  const column = <K extends keyof RollupRow>(key: K) => rows.map((row) => row[key]);
  const campaignRows = campaignDays(rows);
  const campaignColumn = <K extends keyof CampaignDayRow>(key: K) => campaignRows.map((row) => row[key]);
  // Whole columns as array parameters: the statement text (and its plan) does not grow with the batch.
  const daily = sql`
    INSERT INTO stats_daily AS s (day, campaign_id, offer_id, site_id, block_id, device, country, ${COUNTER_NAMES})
    SELECT * FROM unnest(
      ${column('day')}::date[], ${column('campaign_id')}::integer[], ${column('offer_id')}::integer[],
      ${column('site_id')}::integer[], ${column('block_id')}::integer[], ${column('device')}::smallint[],
      ${column('country')}::text[], ${sql.join(ROLLUP_COUNTERS.map((counter) => sql`${column(counter)}::bigint[]`))}
    ) AS r
    WHERE ${guard}
    ON CONFLICT (campaign_id, day, offer_id, site_id, block_id, device, country) DO UPDATE SET ${ADD_COUNTERS}
    RETURNING 1`;
  // Reading the whole of rollup_daily first makes PostgreSQL finish those upserts before it starts
  // these: data-modifying CTEs otherwise run in an order it does not promise.
  const campaigns = sql`
    INSERT INTO stats_campaign_daily AS s (campaign_id, day, ${COUNTER_NAMES})
    SELECT * FROM unnest(
      ${campaignColumn('campaign_id')}::integer[], ${campaignColumn('day')}::date[],
      ${sql.join(ROLLUP_COUNTERS.map((counter) => sql`${campaignColumn(counter)}::bigint[]`))}
    ) AS r
    WHERE ${guard} AND (SELECT count(*) FROM rollup_daily) > 0
    ON CONFLICT (campaign_id, day) DO UPDATE SET ${ADD_COUNTERS}
    RETURNING 1`;
  return [
    { name: 'rollup_daily', statement: daily },
    { name: 'rollup_campaign', statement: campaigns },
    summaryNamedWrite(events, timeZone, sql<boolean>`${guard} AND (SELECT count(*) FROM rollup_campaign) > 0`),
  ];
}

const COUNTER_NAMES = sql.join(ROLLUP_COUNTERS.map((counter) => sql.ref(counter)));
/** An upsert's update: each counter of the row (`s`) plus the one being inserted. */
const ADD_COUNTERS = sql.join(
  ROLLUP_COUNTERS.map((counter) => sql`${sql.ref(counter)} = ${sql.ref(`s.${counter}`)} + ${sql.ref(`excluded.${counter}`)}`),
);

type CampaignDayRow = Omit<RollupRow, 'offer_id' | 'site_id' | 'block_id' | 'device' | 'country'>;

/** The rollup rows summed per campaign and day, sorted by that key. */
function campaignDays(rows: readonly RollupRow[]): CampaignDayRow[] {
  const days = new Map<string, CampaignDayRow>();
  for (const { offer_id, site_id, block_id, device, country, ...row } of rows) {
    const key = `${row.campaign_id}|${row.day}`;
    const total = days.get(key);
    if (total === undefined) days.set(key, row);
    else for (const counter of ROLLUP_COUNTERS) total[counter] += row[counter];
  }
  return [...days.values()].sort((a, b) => a.campaign_id - b.campaign_id || (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

/** Events summed per rollup key, sorted by key so that writers lock rows in one order. */
function rollupRows(events: readonly TrafficEvent[], timeZone: string): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  for (const event of events) {
    const day = dayOf(event.at, timeZone);
    const country = (event.country ?? '').toUpperCase();
    const key = `${day}|${event.campaignId}|${event.offerId}|${event.siteId}|${event.blockId}|${event.device}|${country}`;
    const counters = eventCounters(event);
    const row = rows.get(key);
    if (row === undefined) {
      const place = { campaign_id: event.campaignId, offer_id: event.offerId, site_id: event.siteId, block_id: event.blockId };
      rows.set(key, { day, ...place, device: event.device, country, ...counters });
    } else for (const counter of ROLLUP_COUNTERS) row[counter] += counters[counter];
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
}

/**
 * Recomputes the campaign totals and the day and month summaries from the per-ad rows, for rollup
 * rows loaded into `stats_daily` directly rather than through rollupWrites (benchmark seeds).
 */
export async function rebuildCampaignRollup(db: Db): Promise<void> {
  const sums = sql.join(ROLLUP_COUNTERS.map((counter) => sql`sum(${sql.ref(counter)})`));
  await inTransaction(db, async (trx) => {
    await sql`DELETE FROM stats_campaign_daily`.execute(trx);
    await sql`
      INSERT INTO stats_campaign_daily (campaign_id, day, ${COUNTER_NAMES})
      SELECT campaign_id, day, ${sums} FROM stats_daily GROUP BY campaign_id, day`.execute(trx);
    await rebuildSummaries(trx);
  });
}

import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../db/list.ts';
import type { RefundedClicksTable, RefundReason, RefundsTable } from '../../db/schema.ts';

export type RefundRow = Selectable<RefundsTable>;
export type RefundedClickRow = Selectable<RefundedClicksTable>;

/** A billed click a refund may take, with whether a refund already took it. */
export interface CandidateClick {
  click_id: string;
  created_at: Date;
  campaign_id: number;
  offer_id: number;
  site_id: number;
  block_id: number;
  device: number;
  country: string;
  advertiser_id: number;
  publisher_id: number;
  status: string;
  charge_micros: number;
  publisher_micros: number;
  margin_micros: number;
  refunded: boolean;
}

/** Which clicks a refund looks at: named ones, or the billed clicks of a place and time range. */
export type ClickSelection =
  | { clickIds: readonly string[] }
  | { siteId?: number; blockId?: number; network?: string; from: Date; to: Date };

const candidateColumns = sql`c.click_id, c.created_at, c.campaign_id, c.offer_id, c.site_id, c.block_id, c.device,
  c.country, c.advertiser_id, c.publisher_id, c.status, c.charge_micros, c.publisher_micros, c.margin_micros,
  EXISTS (SELECT 1 FROM refunded_clicks AS r WHERE r.click_id = c.click_id) AS refunded`;

/**
 * The clicks of a selection in the order they came in, at most `limit`. Click ids select clicks
 * whatever their status (the caller reports those it cannot refund); a range selects billed ones.
 */
export async function findCandidateClicks(db: Db, selection: ClickSelection, limit: number): Promise<CandidateClick[]> {
  if ('clickIds' in selection) {
    const result = await sql<CandidateClick>`
      SELECT ${candidateColumns} FROM clicks AS c
      WHERE c.click_id = ANY(${[...selection.clickIds]}::text[])
      ORDER BY c.created_at, c.click_id
      LIMIT ${limit}`.execute(db);
    return result.rows;
  }
  const conditions = [sql`c.status = 'billed'`, sql`c.created_at >= ${selection.from}`, sql`c.created_at < ${selection.to}`];
  if (selection.siteId !== undefined) conditions.push(sql`c.site_id = ${selection.siteId}`);
  if (selection.blockId !== undefined) conditions.push(sql`c.block_id = ${selection.blockId}`);
  if (selection.network !== undefined) conditions.push(sql`c.address <<= ${selection.network}::inet`);
  const result = await sql<CandidateClick>`
    SELECT ${candidateColumns} FROM clicks AS c
    WHERE ${sql.join(conditions, sql` AND `)}
    ORDER BY c.created_at, c.click_id
    LIMIT ${limit}`.execute(db);
  return result.rows;
}

/** Locks these accounts in id order (the order every writer of balances uses) and returns their balances. */
export async function lockBalances(db: Db, accountIds: readonly number[]): Promise<Map<number, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'balance_micros'])
    .where('id', 'in', [...accountIds])
    .orderBy('id')
    .forUpdate()
    .execute();
  return new Map(rows.map((row) => [row.id, row.balance_micros]));
}

export async function insertRefund(db: Db, values: Omit<RefundRow, 'id' | 'comment'> & { comment: string }): Promise<RefundRow> {
  return db.insertInto('refunds').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Records the refunded clicks; a click another refund took meanwhile is skipped (its primary key).
 * Returns how many were recorded.
 */
export async function insertRefundedClicks(db: Db, rows: readonly RefundedClickRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db
    .insertInto('refunded_clicks')
    .values([...rows])
    .onConflict((conflict) => conflict.column('click_id').doNothing())
    .returning('click_id')
    .execute();
  return inserted.length;
}

export interface RefundFilter {
  reason?: RefundReason;
}

/** Refunds, newest first. */
export async function listRefunds(
  db: Db,
  filter: RefundFilter,
  limit: number,
  offset: number,
): Promise<ListWithTotal<RefundRow>> {
  let query = db.selectFrom('refunds');
  if (filter.reason !== undefined) query = query.where('reason', '=', filter.reason);
  return listWithTotal(query, (filtered) => filtered.selectAll().orderBy('id', 'desc').limit(limit).offset(offset));
}

export async function findRefund(db: Db, id: number): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Per refund, what each advertiser got back and what each publisher gave back. */
export async function refundParties(db: Db, refundIds: readonly number[]) {
  if (refundIds.length === 0) return { advertisers: [], publishers: [] };
  const [advertisers, publishers] = await Promise.all([
    db
      .selectFrom('refunded_clicks')
      .select((eb) => [
        'refund_id',
        'advertiser_id',
        eb.fn.countAll<string>().as('clicks'),
        eb.fn.sum<string>('charge_micros').as('charge_micros'),
      ])
      .where('refund_id', 'in', [...refundIds])
      .groupBy(['refund_id', 'advertiser_id'])
      .orderBy('advertiser_id')
      .execute(),
    db
      .selectFrom('refunded_clicks')
      .select((eb) => [
        'refund_id',
        'publisher_id',
        eb.fn.countAll<string>().as('clicks'),
        eb.fn.sum<string>('publisher_reversed_micros').as('reversed_micros'),
        eb.fn.sum<string>('publisher_unrecovered_micros').as('unrecovered_micros'),
      ])
      .where('refund_id', 'in', [...refundIds])
      .groupBy(['refund_id', 'publisher_id'])
      .orderBy('publisher_id')
      .execute(),
  ]);
  return { advertisers, publishers };
}

export interface RefundedClickFilter {
  advertiserId?: number;
  publisherId?: number;
  campaignId?: number;
  siteId?: number;
  reason?: RefundReason;
}

/** Refunded clicks of one party, newest refund first, with the click and its refund. */
export async function listRefundedClicks(db: Db, filter: RefundedClickFilter, limit: number, offset: number) {
  let query = db
    .selectFrom('refunded_clicks as r')
    .innerJoin('refunds as f', 'f.id', 'r.refund_id')
    .innerJoin('clicks as c', 'c.click_id', 'r.click_id');
  if (filter.advertiserId !== undefined) query = query.where('r.advertiser_id', '=', filter.advertiserId);
  if (filter.publisherId !== undefined) query = query.where('r.publisher_id', '=', filter.publisherId);
  if (filter.campaignId !== undefined) query = query.where('c.campaign_id', '=', filter.campaignId);
  if (filter.siteId !== undefined) query = query.where('c.site_id', '=', filter.siteId);
  if (filter.reason !== undefined) query = query.where('f.reason', '=', filter.reason);
  return listWithTotal(query, (filtered) =>
    filtered
      .select([
        'r.click_id',
        'r.refund_id',
        'r.charge_micros',
        'r.publisher_reversed_micros',
        'r.publisher_unrecovered_micros',
        'f.reason',
        'f.created_at as refunded_at',
        'c.created_at',
        'c.campaign_id',
        'c.offer_id',
        'c.site_id',
        'c.block_id',
      ])
      .orderBy('r.refund_id', 'desc')
      .orderBy('c.created_at', 'desc')
      .orderBy('r.click_id')
      .limit(limit)
      .offset(offset),
  );
}

/**
 * Billed clicks not refunded yet, made in [since, until), that are more than `maxClicks` from one
 * address on one block within `windowMs` (counting that address's billed clicks on that block in
 * the window before each click, refunded or not): the first `maxClicks` of a burst stay billed,
 * the rest are a click flood. Clicks without an address (recorded before migration 0490) are left alone.
 */
export async function findClickFloods(
  db: Db,
  range: { since: Date; until: Date },
  rule: { maxClicks: number; windowMs: number },
  limit: number,
): Promise<string[]> {
  const windowStart = new Date(range.since.getTime() - rule.windowMs);
  const window = `${rule.windowMs} milliseconds`;
  // Per click: the clicks of its block and address in [its time - window, its time] (RANGE counts
  // every click of the same instant), less those of the same instant that come after it by id, so
  // that a burst of clicks in one millisecond is ordered too (by id, byte order on every database).
  const result = await sql<{ click_id: string }>`
    SELECT f.click_id FROM (
      SELECT c.click_id, c.created_at,
        count(*) OVER (
          PARTITION BY c.block_id, c.address ORDER BY c.created_at
          RANGE BETWEEN ${window}::interval PRECEDING AND CURRENT ROW
        )
        - count(*) OVER (PARTITION BY c.block_id, c.address, c.created_at)
        + row_number() OVER (PARTITION BY c.block_id, c.address, c.created_at ORDER BY c.click_id COLLATE "C") AS recent
      FROM clicks AS c
      WHERE c.status = 'billed' AND c.address IS NOT NULL
        AND c.created_at >= ${windowStart} AND c.created_at < ${range.until}
    ) AS f
    WHERE f.recent > ${rule.maxClicks} AND f.created_at >= ${range.since}
      AND NOT EXISTS (SELECT 1 FROM refunded_clicks AS r WHERE r.click_id = f.click_id)
    ORDER BY f.created_at, f.click_id
    LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => row.click_id);
}

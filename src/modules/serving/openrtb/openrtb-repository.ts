import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';

/** SQL of OpenRTB bids: the wins their notices record (migration 0690). */

export interface WinRecord {
  impressionId: string;
  offerId: number;
  campaignId: number;
  blockId: number;
  bidPriceMicros: number;
  clearingPriceMicros: number | null;
  bidAt: Date;
  at: Date;
  notice: 'win' | 'billing';
}

/**
 * Records a notice of a won bid, in the caller's transaction. Returns whether this notice made it
 * won (the first notice: it counts the bid served) and whether a view pixel came before it. A
 * later notice only fills in its own time and a clearing price not yet known. Each step is one
 * statement on the row's key, so of concurrent notices exactly one is the first (a second waits
 * for the first's row and then finds it won).
 */
export async function recordWin(trx: Db, win: WinRecord): Promise<{ first: boolean; viewedEarly: boolean }> {
  const noticeColumn = win.notice === 'win' ? 'win_notice_at' : 'billing_notice_at';
  const inserted = await trx
    .insertInto('openrtb_wins')
    .values({
      impression_id: win.impressionId,
      offer_id: win.offerId,
      campaign_id: win.campaignId,
      block_id: win.blockId,
      bid_price_micros: win.bidPriceMicros,
      clearing_price_micros: win.clearingPriceMicros,
      bid_at: win.bidAt,
      won_at: win.at,
      [noticeColumn]: win.at,
    })
    .onConflict((conflict) => conflict.column('impression_id').doNothing())
    .returning('impression_id')
    .executeTakeFirst();
  if (inserted !== undefined) return { first: true, viewedEarly: false };
  // The row is there: a view pixel's that came first (not won yet), or an earlier notice's.
  const afterEarlyView = await trx
    .updateTable('openrtb_wins')
    .set({
      won_at: win.at,
      [noticeColumn]: win.at,
      bid_price_micros: win.bidPriceMicros,
      clearing_price_micros: win.clearingPriceMicros,
    })
    .where('impression_id', '=', win.impressionId)
    .where('won_at', 'is', null)
    .returning('impression_id')
    .executeTakeFirst();
  if (afterEarlyView !== undefined) return { first: true, viewedEarly: true };
  await trx
    .updateTable('openrtb_wins')
    .set((eb) => ({
      [noticeColumn]: eb.fn.coalesce(noticeColumn, eb.val(win.at)),
      clearing_price_micros: eb.fn.coalesce('clearing_price_micros', eb.val(win.clearingPriceMicros)),
    }))
    .where('impression_id', '=', win.impressionId)
    .execute();
  return { first: false, viewedEarly: false };
}

/** Whether the bid of this impression won (a notice arrived). */
export async function hasWon(db: Db, impressionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('openrtb_wins')
    .select('impression_id')
    .where('impression_id', '=', impressionId)
    .where('won_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Remembers that a bid's view pixel fired before any notice of its win, for the notice to count
 * the view. Returns whether the bid had won meanwhile (then the caller counts the view itself).
 */
export async function rememberEarlyView(
  db: Db,
  early: { impressionId: string; offerId: number; campaignId: number; blockId: number; bidAt: Date; at: Date },
): Promise<{ won: boolean }> {
  const { rows } = await sql<{ won: boolean }>`
    INSERT INTO openrtb_wins AS w (impression_id, offer_id, campaign_id, block_id, bid_price_micros, bid_at, viewed_early_at)
    VALUES (${early.impressionId}, ${early.offerId}, ${early.campaignId}, ${early.blockId}, 0,
      ${early.bidAt.toISOString()}::timestamptz, ${early.at.toISOString()}::timestamptz)
    ON CONFLICT (impression_id) DO UPDATE SET viewed_early_at = COALESCE(w.viewed_early_at, EXCLUDED.viewed_early_at)
    RETURNING w.won_at IS NOT NULL AS won`.execute(db);
  return { won: rows[0]?.won ?? false };
}

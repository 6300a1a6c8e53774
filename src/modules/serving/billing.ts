import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { applyLedgerChanges, InsufficientFunds, type LedgerChange } from '../ledger/ledger.ts';
import { type DeviceId, type GoalId, recordEvents, type TrafficEvent } from '../statistics/record-events.ts';
import { splitCharge } from './auction.ts';
import type { ClickClaims } from './click-token.ts';

/**
 * Billing of clicks and counting of conversions. Each is one transaction that holds the event
 * row, the money and the statistics together, committed before the response is sent.
 */

export type ClickOutcome = 'billed' | 'duplicate' | 'bot' | 'limit' | 'funds';

export interface ClickParties {
  advertiserId: number;
  publisherId: number;
  platformAccountId: number;
}

export interface BillingSettings {
  revenueSharePercent: number;
  timeZone: string;
}

/**
 * What one billed click writes besides its click row: the advertiser's debit, the publisher's
 * share and the platform's margin (summing to zero), and the click's line in the rollup.
 */
function clickEntries(
  claims: ClickClaims,
  parties: ClickParties,
  split: { publisherMicros: number; marginMicros: number },
  nowMs: number,
): { changes: LedgerChange[]; event: TrafficEvent } {
  const reference = claims.clickId;
  const changes: LedgerChange[] = [
    {
      accountId: parties.advertiserId,
      amountMicros: -claims.chargeMicros,
      kind: 'click_charge',
      counterpartyId: parties.publisherId,
      reference,
    },
  ];
  if (split.publisherMicros > 0) {
    changes.push({
      accountId: parties.publisherId,
      amountMicros: split.publisherMicros,
      kind: 'click_revenue',
      counterpartyId: parties.advertiserId,
      reference,
    });
  }
  if (split.marginMicros > 0) {
    changes.push({
      accountId: parties.platformAccountId,
      amountMicros: split.marginMicros,
      kind: 'click_margin',
      counterpartyId: parties.advertiserId,
      reference,
    });
  }
  const event: TrafficEvent = {
    at: nowMs,
    campaignId: claims.campaignId,
    offerId: claims.offerId,
    siteId: claims.siteId,
    blockId: claims.blockId,
    device: claims.device as DeviceId,
    country: claims.country,
    clicks: 1,
    spendMicros: claims.chargeMicros,
    publisherIncomeMicros: split.publisherMicros,
  };
  return { changes, event };
}

/**
 * Bills a click once: the click row's primary key is the guard (a second attempt inserts nothing
 * and moves no money). The advertiser is debited the charge; the publisher is credited its share
 * and the platform the rest, so the three ledger entries sum to zero.
 */
export async function billClick(
  db: Db,
  claims: ClickClaims,
  parties: ClickParties,
  settings: BillingSettings,
  nowMs: number,
): Promise<ClickOutcome> {
  const split = splitCharge(claims.chargeMicros, settings.revenueSharePercent);
  try {
    return await db.transaction().execute(async (trx) => {
      const inserted = await insertClickRow(trx, claims, parties, nowMs, 'billed', {
        charge: claims.chargeMicros,
        publisher: split.publisherMicros,
        margin: split.marginMicros,
      });
      if (!inserted) return 'duplicate';
      const entries = clickEntries(claims, parties, split, nowMs);
      await recordEvents(trx, [entries.event], settings.timeZone);
      await applyLedgerChanges(trx, entries.changes);
      return 'billed';
    });
  } catch (error) {
    if (!(error instanceof InsufficientFunds)) throw error;
    return recordUnbilledClick(db, claims, parties, nowMs, 'funds');
  }
}

export interface PendingClick {
  claims: ClickClaims;
  parties: ClickParties;
  nowMs: number;
}

/**
 * Bills many clicks in one transaction (group commit): one insert of the click rows (duplicates,
 * in the database or within the batch, are skipped), one balance update per account with a ledger
 * row per click and party, and one rollup upsert. When an advertiser's money does not cover its
 * clicks in the batch, the batch is rolled back and its clicks are billed one by one instead, so
 * exactly the clicks that can be paid are billed.
 */
export async function billClicks(db: Db, clicks: readonly PendingClick[], settings: BillingSettings): Promise<ClickOutcome[]> {
  try {
    return await db.transaction().execute(async (trx) => {
      const splits = clicks.map((click) => splitCharge(click.claims.chargeMicros, settings.revenueSharePercent));
      // Whole columns as array parameters: the statement text (and its plan) does not grow with the batch.
      const column = <T>(value: (click: PendingClick, index: number) => T) => clicks.map(value);
      const { rows: inserted } = await sql<{ click_id: string }>`
        INSERT INTO clicks (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, country,
          advertiser_id, publisher_id, status, charge_micros, publisher_micros, margin_micros)
        SELECT c.click_id, c.created_at, c.campaign_id, c.offer_id, c.site_id, c.block_id, c.device, c.country,
          c.advertiser_id, c.publisher_id, 'billed', c.charge_micros, c.publisher_micros, c.margin_micros
        FROM unnest(
          ${column((click) => click.claims.clickId)}::text[],
          ${column((click) => new Date(click.nowMs).toISOString())}::timestamptz[],
          ${column((click) => click.claims.campaignId)}::integer[],
          ${column((click) => click.claims.offerId)}::integer[],
          ${column((click) => click.claims.siteId)}::integer[],
          ${column((click) => click.claims.blockId)}::integer[],
          ${column((click) => click.claims.device)}::smallint[],
          ${column((click) => click.claims.country)}::text[],
          ${column((click) => click.parties.advertiserId)}::integer[],
          ${column((click) => click.parties.publisherId)}::integer[],
          ${column((click) => click.claims.chargeMicros)}::bigint[],
          ${column((_click, index) => splits[index]?.publisherMicros ?? 0)}::bigint[],
          ${column((_click, index) => splits[index]?.marginMicros ?? 0)}::bigint[]
        ) AS c (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, country,
          advertiser_id, publisher_id, charge_micros, publisher_micros, margin_micros)
        ON CONFLICT (click_id) DO NOTHING
        RETURNING click_id`.execute(trx);
      const fresh = new Set(inserted.map((row) => row.click_id));
      const changes: LedgerChange[] = [];
      const events: TrafficEvent[] = [];
      const outcomes = clicks.map((click, index): ClickOutcome => {
        const { claims, parties } = click;
        if (!fresh.delete(claims.clickId)) return 'duplicate';
        const entries = clickEntries(
          claims,
          parties,
          splits[index] ?? { publisherMicros: 0, marginMicros: claims.chargeMicros },
          click.nowMs,
        );
        changes.push(...entries.changes);
        events.push(entries.event);
        return 'billed';
      });
      // The rollup first and the account rows last: the busiest rows stay locked the shortest time.
      await recordEvents(trx, events, settings.timeZone);
      await applyLedgerChanges(trx, changes);
      return outcomes;
    });
  } catch (error) {
    if (!(error instanceof InsufficientFunds)) throw error;
    const outcomes: ClickOutcome[] = [];
    for (const click of clicks) outcomes.push(await billClick(db, click.claims, click.parties, settings, click.nowMs));
    return outcomes;
  }
}

/** Records a click that is redirected but not billed (robot, limit reached, no money). */
export async function recordUnbilledClick(
  db: Db,
  claims: ClickClaims,
  parties: ClickParties,
  nowMs: number,
  reason: 'bot' | 'limit' | 'funds',
): Promise<ClickOutcome> {
  const inserted = await insertClickRow(db, claims, parties, nowMs, reason, { charge: 0, publisher: 0, margin: 0 });
  return inserted ? reason : 'duplicate';
}

async function insertClickRow(
  db: Db,
  claims: ClickClaims,
  parties: ClickParties,
  nowMs: number,
  status: 'billed' | 'bot' | 'limit' | 'funds',
  money: { charge: number; publisher: number; margin: number },
): Promise<boolean> {
  const row = await db
    .insertInto('clicks')
    .values({
      click_id: claims.clickId,
      created_at: new Date(nowMs),
      campaign_id: claims.campaignId,
      offer_id: claims.offerId,
      site_id: claims.siteId,
      block_id: claims.blockId,
      device: claims.device,
      country: claims.country,
      advertiser_id: parties.advertiserId,
      publisher_id: parties.publisherId,
      status,
      charge_micros: money.charge,
      publisher_micros: money.publisher,
      margin_micros: money.margin,
    })
    .onConflict((conflict) => conflict.column('click_id').doNothing())
    .returning('click_id')
    .executeTakeFirst();
  return row !== undefined;
}

export type ConversionOutcome = 'recorded' | 'duplicate' | 'unknown';

/** Counts a conversion once per billed click and goal, on the click's statistics key. */
export async function recordConversion(
  db: Db,
  clickId: string,
  goal: GoalId,
  nowMs: number,
  timeZone: string,
): Promise<ConversionOutcome> {
  return db.transaction().execute(async (trx) => {
    const click = await trx.selectFrom('clicks').selectAll().where('click_id', '=', clickId).executeTakeFirst();
    if (click === undefined || click.status !== 'billed') return 'unknown';
    const inserted = await trx
      .insertInto('conversions')
      .values({ click_id: clickId, goal, created_at: new Date(nowMs) })
      .onConflict((conflict) => conflict.columns(['click_id', 'goal']).doNothing())
      .returning('click_id')
      .executeTakeFirst();
    if (inserted === undefined) return 'duplicate';
    await recordEvents(
      trx,
      [
        {
          at: nowMs,
          campaignId: click.campaign_id,
          offerId: click.offer_id,
          siteId: click.site_id,
          blockId: click.block_id,
          device: click.device as DeviceId,
          country: click.country,
          conversions: { [goal]: 1 },
        },
      ],
      timeZone,
    );
    return 'recorded';
  });
}

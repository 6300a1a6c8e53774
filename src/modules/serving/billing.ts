import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type LedgerChange, postLedgerChanges } from '../ledger/ledger.ts';
import { type DeviceId, type GoalId, recordEvents, rollupWrites, type TrafficEvent } from '../statistics/record-events.ts';
import { type ChargeSplit, splitCharge } from './auction.ts';
import { type ClickClaims, newClickId } from './click-token.ts';

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

/** One billed click's line in the rollup: a click, the advertiser's charge, the publisher's share. */
function clickEvent(claims: ClickClaims, split: ChargeSplit, nowMs: number): TrafficEvent {
  return {
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
}

/**
 * The ledger rows of a batch of billed clicks, all referencing the batch, in this order: per
 * advertiser and publisher the advertiser's debit (`click_charge`, counterparty the publisher),
 * per publisher its share (`click_revenue`), and the platform's margin (`click_margin`); they sum
 * to zero. Each account's balance moves once per batch anyway; a row per click and party would
 * triple the rows written per click for nothing the click rows (each click's charge, share, margin
 * and batch) do not already hold. A credit's counterparty is the advertiser when the batch has
 * only one behind it, otherwise none.
 */
function batchChanges(clicks: readonly PendingClick[], splits: readonly ChargeSplit[], batchId: string): LedgerChange[] {
  type Row = LedgerChange & { clicks: number };
  const debits = new Map<string, Row>();
  const shares = new Map<string, Row>();
  const margins = new Map<string, Row>();
  const add = (rows: Map<string, Row>, key: string, change: Omit<LedgerChange, 'reference'>) => {
    const row = rows.get(key);
    if (row === undefined) {
      rows.set(key, { ...change, reference: batchId, clicks: 1 });
      return;
    }
    row.amountMicros += change.amountMicros;
    row.clicks += 1;
    if (row.counterpartyId !== change.counterpartyId) row.counterpartyId = null;
  };
  clicks.forEach((click, index) => {
    const split = splits[index] as ChargeSplit;
    const { advertiserId, publisherId, platformAccountId } = click.parties;
    add(debits, `${advertiserId}|${publisherId}`, {
      accountId: advertiserId,
      amountMicros: -click.claims.chargeMicros,
      kind: 'click_charge',
      counterpartyId: publisherId,
    });
    if (split.publisherMicros > 0) {
      add(shares, `${publisherId}`, {
        accountId: publisherId,
        amountMicros: split.publisherMicros,
        kind: 'click_revenue',
        counterpartyId: advertiserId,
      });
    }
    if (split.marginMicros > 0) {
      add(margins, `${platformAccountId}`, {
        accountId: platformAccountId,
        amountMicros: split.marginMicros,
        kind: 'click_margin',
        counterpartyId: advertiserId,
      });
    }
  });
  const rows = [...debits.values(), ...shares.values(), ...margins.values()];
  return rows.map(({ clicks: count, ...change }) => ({
    ...change,
    comment: count === 1 ? '1 click' : `${count} clicks`,
  }));
}

export interface PendingClick {
  claims: ClickClaims;
  parties: ClickParties;
  nowMs: number;
}

/** How often a batch is tried again after another transaction inserted one of its clicks first. */
const MAX_ATTEMPTS = 5;

/**
 * Bills clicks, each exactly once, many in one statement (group commit): the click rows, the
 * batch's ledger rows (see batchChanges; one balance move per account) and their rollup lines go
 * in together or not at all. The click id is the guard: a click already in the database, or seen
 * earlier in the batch, is a duplicate and moves no money. When an advertiser's money does not
 * cover its clicks in the batch, nothing is written and the clicks are billed one by one instead,
 * so exactly the clicks that can be paid are billed.
 */
export async function billClicks(db: Db, clicks: readonly PendingClick[], settings: BillingSettings): Promise<ClickOutcome[]> {
  const outcomes = new Array<ClickOutcome>(clicks.length).fill('duplicate');
  const seen = new Set<string>();
  let pending: number[] = [];
  clicks.forEach((click, index) => {
    if (seen.has(click.claims.clickId)) return;
    seen.add(click.claims.clickId);
    pending.push(index);
  });
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    const batch = pending.map((index) => clicks[index] as PendingClick);
    if (await postClicks(db, batch, settings, attempt < MAX_ATTEMPTS)) {
      for (const index of pending) outcomes[index] = 'billed';
      return outcomes;
    }
    const existing = await existingClickIds(db, batch);
    if (existing.size === 0) break;
    pending = pending.filter((index) => !existing.has((clicks[index] as PendingClick).claims.clickId));
  }
  // Refused for money: one at a time, so each click that can still be paid is.
  for (const index of pending) outcomes[index] = await billClick(db, clicks[index] as PendingClick, settings);
  return outcomes;
}

async function billClick(db: Db, click: PendingClick, settings: BillingSettings): Promise<ClickOutcome> {
  if (await postClicks(db, [click], settings, true)) return 'billed';
  if ((await existingClickIds(db, [click])).size > 0) return 'duplicate';
  return recordUnbilledClick(db, click.claims, click.parties, click.nowMs, 'funds');
}

/**
 * One statement: refused (false) when any of the clicks is already recorded or any advertiser's
 * balance does not cover its charges; otherwise the clicks, their money and their rollup lines are
 * committed together before it returns. A click inserted meanwhile by another transaction makes
 * the statement fail on the click's primary key; that counts as refused when `retryable`.
 */
async function postClicks(
  db: Db,
  clicks: readonly PendingClick[],
  settings: BillingSettings,
  retryable: boolean,
): Promise<boolean> {
  const splits = clicks.map((click) => splitCharge(click.claims.chargeMicros, settings.revenueSharePercent));
  // Same form as a click id: 128 random bits.
  const batchId = newClickId();
  const changes = batchChanges(clicks, splits, batchId);
  const events = clicks.map((click, index) => clickEvent(click.claims, splits[index] as ChargeSplit, click.nowMs));
  const posted = sql<boolean>`EXISTS (SELECT 1 FROM posted)`;
  // Whole columns as array parameters: the statement text (and its plan) does not grow with the batch.
  const column = <T>(value: (click: PendingClick, index: number) => T) => clicks.map(value);
  const clickIds = column((click) => click.claims.clickId);
  const insertClicks = sql`
    INSERT INTO clicks (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, country,
      advertiser_id, publisher_id, status, charge_micros, publisher_micros, margin_micros, billing_batch)
    SELECT c.click_id, c.created_at, c.campaign_id, c.offer_id, c.site_id, c.block_id, c.device, c.country,
      c.advertiser_id, c.publisher_id, 'billed', c.charge_micros, c.publisher_micros, c.margin_micros, ${batchId}::text
    FROM unnest(
      ${clickIds}::text[],
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
      ${column((_click, index) => (splits[index] as ChargeSplit).publisherMicros)}::bigint[],
      ${column((_click, index) => (splits[index] as ChargeSplit).marginMicros)}::bigint[]
    ) AS c (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, country,
      advertiser_id, publisher_id, charge_micros, publisher_micros, margin_micros)
    WHERE ${posted}`;
  try {
    return await postLedgerChanges(db, changes, {
      alongside: [{ name: 'billed_clicks', statement: insertClicks }, ...rollupWrites(events, settings.timeZone, posted)],
    });
  } catch (error) {
    if (retryable && isUniqueViolation(error)) return false;
    throw error;
  }
}

async function existingClickIds(db: Db, clicks: readonly PendingClick[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('clicks')
    .select('click_id')
    .where(
      'click_id',
      'in',
      clicks.map((click) => click.claims.clickId),
    )
    .execute();
  return new Set(rows.map((row) => row.click_id));
}

/** PostgreSQL's unique_violation, as both drivers report it. */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** Records a click that is redirected but not billed (robot, limit reached, no money). */
export async function recordUnbilledClick(
  db: Db,
  claims: ClickClaims,
  parties: ClickParties,
  nowMs: number,
  reason: 'bot' | 'limit' | 'funds',
): Promise<ClickOutcome> {
  // No money moved: the charge, share and margin columns keep their default of 0.
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
      status: reason,
    })
    .onConflict((conflict) => conflict.column('click_id').doNothing())
    .returning('click_id')
    .executeTakeFirst();
  return row === undefined ? 'duplicate' : reason;
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

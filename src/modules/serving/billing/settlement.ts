import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { prepared } from '../../../db/prepared.ts';
import type { AcceptedClicksTable } from '../../../db/schema.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { systemAuditWrite } from '../../audit/index.ts';
import { type LedgerChange, postLedgerChanges } from '../../ledger/index.ts';
import type { DeviceId, GoalId, TrafficEvent } from '../../statistics/index.ts';
import { recordEvents, rollupWrites } from '../../statistics/index.ts';
import { emitSettlementEvents } from '../../webhooks/index.ts';
import { newClickId } from '../tracking/click-token.ts';
import { type ChargeSplit, splitCharge } from './charge-split.ts';

/**
 * Clicks in two steps (docs/adr/0007), and conversions. Acceptance (acceptance.ts) comes first.
 *
 * Settlement, in the background right after: accepted clicks move into `clicks` with their
 * outcome, and the billed ones' money (ledger rows, balances) and rollup lines are written in the
 * same transaction. Settlements take hundreds of clicks at a time, so the balances every click
 * moves (the platform's, the publisher's) are locked once per settlement instead of once per
 * redirect batch.
 */

/** What a settlement recorded for a click: `duplicate` is a click id that was already in `clicks`. */
export type ClickOutcome = 'billed' | 'funds' | 'bot' | 'limit' | 'duplicate';

export interface SettlementSettings {
  revenueSharePercent: number;
  timeZone: string;
  platformAccountId: number;
}

type AcceptedClick = Selectable<AcceptedClicksTable>;

/**
 * Settles accepted clicks: takes their accepted rows (those still there), records each in `clicks`
 * with its outcome, and bills the billable ones, all in one transaction. A click already in `clicks` is a duplicate (a
 * link used twice whose second use was accepted while the first was being settled) and moves no
 * money. When an advertiser cannot pay for all its clicks, the balances are locked and exactly the
 * clicks that fit are billed, in the order they came in; the others are recorded as `funds`.
 * Returns the outcome of every click it took.
 */
export async function settleClicks(
  db: Db,
  clickIds: readonly string[],
  settings: SettlementSettings,
): Promise<Map<string, ClickOutcome>> {
  if (clickIds.length === 0) return new Map();
  return inTransaction(db, async (trx) => settleTakenClicks(trx, await takeAcceptedClicks(trx, clickIds), settings));
}

/** A click taken for settlement, saying whether its id is already in `clicks`. */
export type TakenClick = AcceptedClick & { recorded: boolean };

/**
 * The settlement proper, in the caller's transaction, of clicks taken oldest first: those already
 * recorded are duplicates and move nothing; the others get their `clicks` rows, money and rollup
 * lines. Shared by the settlement of accepted clicks and that of the event log's clicks
 * (docs/adr/0029), which takes its clicks from the log's events instead of `accepted_clicks`.
 */
export async function settleTakenClicks(
  trx: Db,
  taken: readonly TakenClick[],
  settings: SettlementSettings,
): Promise<Map<string, ClickOutcome>> {
  const outcomes = new Map<string, ClickOutcome>();
  const fresh = taken.filter((click) => {
    if (!click.recorded) return true;
    outcomes.set(click.click_id, 'duplicate');
    return false;
  });
  if (fresh.length === 0) return outcomes;
  const billable = fresh.filter((click) => click.refusal === null);
  let billed = new Set(billable.map((click) => click.click_id));
  if (!(await recordSettlement(trx, fresh, billed, settings))) {
    billed = await clicksThatFit(trx, billable, settings.platformAccountId);
    if (!(await recordSettlement(trx, fresh, billed, settings))) {
      throw new Error('a settlement was refused with every balance it moves locked');
    }
  }
  for (const click of fresh) outcomes.set(click.click_id, click.refusal ?? (billed.has(click.click_id) ? 'billed' : 'funds'));
  const limited = fresh.filter((click) => click.refusal === 'limit').map((click) => click.campaign_id);
  await emitSettlementEvents(trx, fresh, billed, settings.timeZone, await campaignTitles(trx, limited));
  return outcomes;
}

/** The titles of these campaigns (the notice of a campaign stopped by its daily limit names it). */
async function campaignTitles(trx: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('campaigns')
    .select(['id', 'title'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.title]));
}

/**
 * Deletes and returns the accepted rows of these click ids, oldest first, each saying whether its
 * click id is already in `clicks`. The DELETE is the claim: a row another settlement is taking
 * makes this one wait until that one ends and then skip the row, gone by then. Two settlements of
 * the same clicks (a sweep, a conversion, another instance) lock them in the same order; should
 * PostgreSQL still find them deadlocked, one fails and its clicks stay accepted for a later sweep.
 */
async function takeAcceptedClicks(trx: Db, clickIds: readonly string[]): Promise<TakenClick[]> {
  const result = await sql<TakenClick>`
    WITH taken AS (
      DELETE FROM accepted_clicks WHERE click_id = ANY(${clickIds}::text[]) RETURNING *
    )
    SELECT taken.*, EXISTS (SELECT 1 FROM clicks WHERE clicks.click_id = taken.click_id) AS recorded
    FROM taken
    ORDER BY taken.created_at, taken.click_id`.execute(trx);
  return result.rows;
}

/**
 * Locks every balance the settlement moves (in id order, as postLedgerChanges does) and picks the
 * billable clicks each advertiser's balance covers, in the order they came in.
 */
async function clicksThatFit(trx: Db, billable: readonly AcceptedClick[], platformAccountId: number): Promise<Set<string>> {
  const ids = new Set<number>([platformAccountId]);
  for (const click of billable) {
    ids.add(click.advertiser_id);
    ids.add(click.publisher_id);
  }
  const rows = await trx
    .selectFrom('accounts')
    .select(['id', 'balance_micros'])
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forUpdate()
    .execute();
  const left = new Map(rows.map((row) => [row.id, row.balance_micros]));
  const fit = new Set<string>();
  for (const click of billable) {
    const balance = left.get(click.advertiser_id) ?? 0;
    if (balance < click.charge_micros) continue;
    left.set(click.advertiser_id, balance - click.charge_micros);
    fit.add(click.click_id);
  }
  return fit;
}

/** The rollup key of a click's events (its click, its conversions). */
function rollupKeyOf(
  click: Pick<AcceptedClick, 'campaign_id' | 'offer_id' | 'site_id' | 'block_id' | 'device' | 'country'>,
): Pick<TrafficEvent, 'campaignId' | 'offerId' | 'siteId' | 'blockId' | 'device' | 'country'> {
  return {
    campaignId: click.campaign_id,
    offerId: click.offer_id,
    siteId: click.site_id,
    blockId: click.block_id,
    device: click.device as DeviceId,
    country: click.country,
  };
}

/** A billed click's line in the rollup: a click, the advertiser's charge, the publisher's share. */
function clickEvent(click: AcceptedClick, split: ChargeSplit): TrafficEvent {
  return {
    at: new Date(click.created_at).getTime(),
    ...rollupKeyOf(click),
    clicks: 1,
    spendMicros: click.charge_micros,
    publisherIncomeMicros: split.publisherMicros,
  };
}

/**
 * The ledger rows of a settlement's billed clicks, all referencing the settlement, in this order:
 * per advertiser and publisher the advertiser's debit (`click_charge`, counterparty the publisher),
 * per publisher its share (`click_revenue`), and the platform's margin (`click_margin`); they sum
 * to zero. Each account's balance moves once per settlement anyway; a row per click and party
 * would triple the rows written per click for nothing the click rows (each click's charge, share,
 * margin and batch) do not already hold. A credit's counterparty is the advertiser when the
 * settlement has only one behind it, otherwise none.
 */
function batchChanges(
  clicks: readonly AcceptedClick[],
  splits: readonly ChargeSplit[],
  batchId: string,
  platformAccountId: number,
): LedgerChange[] {
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
    const advertiserId = click.advertiser_id;
    const publisherId = click.publisher_id;
    add(debits, `${advertiserId}|${publisherId}`, {
      accountId: advertiserId,
      amountMicros: -click.charge_micros,
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

/**
 * One statement: the settled clicks' rows in `clicks`, and, for the billed ones, their ledger rows,
 * balances and rollup lines. Refused (false, nothing written) when an advertiser's balance does not
 * cover its billed clicks.
 */
async function recordSettlement(
  trx: Db,
  clicks: readonly AcceptedClick[],
  billed: ReadonlySet<string>,
  settings: SettlementSettings,
): Promise<boolean> {
  const billedClicks = clicks.filter((click) => billed.has(click.click_id));
  const splits = billedClicks.map((click) => splitCharge(click.charge_micros, settings.revenueSharePercent));
  const splitOf = new Map(billedClicks.map((click, index) => [click.click_id, splits[index] as ChargeSplit]));
  // Same form as a click id: 128 random bits.
  const batchId = newClickId();
  const column = <T>(value: (click: AcceptedClick, split: ChargeSplit | undefined) => T) =>
    clicks.map((click) => value(click, splitOf.get(click.click_id)));
  const posted = sql<boolean>`EXISTS (SELECT 1 FROM posted)`;
  // Guarded by `posted` (see postLedgerChanges); without money to move, `posted` is just a row.
  const insertClicks = sql`
    INSERT INTO clicks (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, country,
      advertiser_id, publisher_id, status, charge_micros, publisher_micros, margin_micros, billing_batch, address,
      invalid_reason, served_at, served_asn, asn, click_country, visitor_hash)
    SELECT * FROM unnest(
      ${column((click) => click.click_id)}::text[],
      ${column((click) => new Date(click.created_at).toISOString())}::timestamptz[],
      ${column((click) => click.campaign_id)}::integer[],
      ${column((click) => click.offer_id)}::integer[],
      ${column((click) => click.site_id)}::integer[],
      ${column((click) => click.block_id)}::integer[],
      ${column((click) => click.device)}::smallint[],
      ${column((click) => click.country)}::text[],
      ${column((click) => click.advertiser_id)}::integer[],
      ${column((click) => click.publisher_id)}::integer[],
      ${column((click, split) => click.refusal ?? (split === undefined ? 'funds' : 'billed'))}::text[],
      ${column((click, split) => (split === undefined ? 0 : click.charge_micros))}::bigint[],
      ${column((_click, split) => split?.publisherMicros ?? 0)}::bigint[],
      ${column((_click, split) => split?.marginMicros ?? 0)}::bigint[],
      ${column((_click, split) => (split === undefined ? null : batchId))}::text[],
      ${column((click) => click.address)}::inet[],
      ${column((click) => click.invalid_reason)}::text[],
      ${column((click) => (click.served_at === null ? null : new Date(click.served_at).toISOString()))}::timestamptz[],
      ${column((click) => click.served_asn)}::integer[],
      ${column((click) => click.asn)}::integer[],
      ${column((click) => click.click_country)}::text[],
      ${column((click) => click.visitor_hash)}::text[]
    ) AS c
    WHERE ${posted}
    RETURNING 1`;
  const refused = refusedInvalidEvents(clicks);
  if (billedClicks.length === 0) {
    await settleUnbilled(trx, insertClicks, refused, settings.timeZone);
    return true;
  }
  const events = [...billedClicks.map((click, index) => clickEvent(click, splits[index] as ChargeSplit)), ...refused];
  return postLedgerChanges(trx, batchChanges(billedClicks, splits, batchId, settings.platformAccountId), {
    alongside: [
      { name: 'settled_clicks', statement: insertClicks },
      ...rollupWrites(events, settings.timeZone, posted),
      settlementAudit(batchId, billedClicks, splits, posted),
    ],
  });
}

/**
 * The rollup lines of the clicks refused as general invalid traffic: counted (`invalid_clicks`) on
 * their own day and place, so that gross figures come from the summaries, and never billed.
 */
function refusedInvalidEvents(clicks: readonly AcceptedClick[]): TrafficEvent[] {
  return clicks
    .filter((click) => click.refusal === 'bot')
    .map((click) => ({ at: new Date(click.created_at).getTime(), ...rollupKeyOf(click), invalidClicks: 1 }));
}

/** A settlement that bills nothing: its click rows, and the refused clicks' rollup lines, in one statement. */
async function settleUnbilled(trx: Db, insertClicks: RawBuilder<unknown>, refused: readonly TrafficEvent[], timeZone: string) {
  const writes = rollupWrites(refused, timeZone, sql<boolean>`EXISTS (SELECT 1 FROM posted)`);
  const last = writes.pop();
  if (last === undefined) {
    await prepared(sql`WITH posted AS (SELECT 1) ${insertClicks}`).execute(trx);
    return;
  }
  const ctes = [{ name: 'settled_clicks', statement: insertClicks }, ...writes].map(
    (write) => sql`, ${sql.id(write.name)} AS (${write.statement})`,
  );
  await sql`WITH posted AS (SELECT 1)${sql.join(ctes, sql``)} ${last.statement}`.execute(trx);
}

/** A settlement's entry in the audit trail (docs/adr/0013): one per batch, with the system as actor. */
function settlementAudit(
  batchId: string,
  clicks: readonly AcceptedClick[],
  splits: readonly ChargeSplit[],
  posted: RawBuilder<boolean>,
) {
  const sum = (value: (split: ChargeSplit, index: number) => number) =>
    splits.reduce((total, split, index) => total + value(split, index), 0);
  return systemAuditWrite(
    'settlement_audited',
    {
      action: 'clicks.settle',
      objectType: 'billing_batch',
      objectId: batchId,
      after: {
        clicks: clicks.length,
        chargedMicros: sum((_split, index) => clicks[index]?.charge_micros ?? 0),
        publisherMicros: sum((split) => split.publisherMicros),
        marginMicros: sum((split) => split.marginMicros),
      },
    },
    posted,
  );
}

/**
 * Accepted clicks older than `beforeMs` (any age when undefined), oldest first: those whose
 * instance stopped before settling them.
 */
export async function findAcceptedClicks(db: Db, beforeMs: number | undefined, limit: number): Promise<string[]> {
  let query = db.selectFrom('accepted_clicks').select('click_id');
  if (beforeMs !== undefined) query = query.where('created_at', '<', new Date(beforeMs));
  const rows = await query.orderBy('created_at').limit(limit).execute();
  return rows.map((row) => row.click_id);
}

/** `refused`: a postback whose key is not the one of the click's advertiser. */
export type ConversionOutcome = 'recorded' | 'duplicate' | 'unknown' | 'refused';

/** A conversion as reported: by the browser pixel, or by the advertiser's server with its postback key. */
export type ReportedConversion =
  | { clickId: string; goal: GoalId; source: 'pixel' }
  | { clickId: string; goal: GoalId; source: 'postback'; keyHash: Buffer };

/**
 * Counts a conversion once per billed click and goal, on the click's statistics key, marked with
 * its source (the pixel's are counted apart too). A postback counts only with the key of the
 * click's advertiser. A click still accepted but not settled (a conversion can follow its
 * redirect within milliseconds) is settled first, so that whether it was billed is known.
 */
export async function recordConversion(
  db: Db,
  conversion: ReportedConversion,
  nowMs: number,
  settings: SettlementSettings,
): Promise<ConversionOutcome> {
  const { clickId, goal, source } = conversion;
  const findClick = (trx: Db) => trx.selectFrom('clicks').selectAll().where('click_id', '=', clickId).executeTakeFirst();
  if ((await findClick(db)) === undefined) await settleClicks(db, [clickId], settings);
  return inTransaction(db, async (trx) => {
    const click = await findClick(trx);
    if (click === undefined || click.status !== 'billed') return 'unknown';
    if (conversion.source === 'postback' && !(await holdsPostbackKey(trx, click.advertiser_id, conversion.keyHash))) {
      return 'refused';
    }
    const inserted = await trx
      .insertInto('conversions')
      .values({ click_id: clickId, goal, source, created_at: new Date(nowMs) })
      .onConflict((conflict) => conflict.columns(['click_id', 'goal']).doNothing())
      .returning('click_id')
      .executeTakeFirst();
    if (inserted === undefined) return 'duplicate';
    const counts = { conversions: { [goal]: 1 }, ...(source === 'pixel' ? { pixelConversions: { [goal]: 1 } } : {}) };
    await recordEvents(trx, [{ at: nowMs, ...rollupKeyOf(click), ...counts }], settings.timeZone);
    return 'recorded';
  });
}

/** Whether the advertiser's postback key is the one whose SHA-256 is `keyHash`. */
async function holdsPostbackKey(trx: Db, advertiserId: number, keyHash: Buffer): Promise<boolean> {
  const row = await trx
    .selectFrom('postback_keys')
    .select('advertiser_id')
    .where('advertiser_id', '=', advertiserId)
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
  return row !== undefined;
}

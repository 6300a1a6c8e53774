import type { Db } from '../../db/database.ts';
import type { RefundReason } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { DomainError, invalidField, notFound } from '../../errors.ts';
import { microsToAmount } from '../../money.ts';
import { applyLedgerChange, findOrCreatePlatformAccount } from '../ledger/index.ts';
import type { DeviceId, TrafficEvent } from '../statistics/index.ts';
import { recordEvents } from '../statistics/index.ts';
import { emitWebhookEvent } from '../webhooks/index.ts';
import { planRefund, type RefundPlan, refundLedgerChanges } from './refund-plan.ts';
import {
  type CandidateClick,
  type ClickSelection,
  findCandidateClicks,
  findRefund,
  insertRefund,
  insertRefundedClicks,
  lockBalances,
  type RefundRow,
  refundParties,
} from './refund-repository.ts';

/** At most this many clicks in one refund: a wider selection is refused, to be split by time. */
export const MAX_REFUND_CLICKS = 50_000;
/** At most this many click ids in one request. */
export const MAX_REFUND_CLICK_IDS = 1_000;

export interface RefundRequest {
  selection: ClickSelection;
  reason: RefundReason;
  comment: string;
  /** The operator applying it; null for the automatic detector. */
  operatorId: number | null;
  dryRun: boolean;
}

/** Why a named click was not refunded. */
export type SkipReason = 'unknown' | 'not_billed' | 'refunded';

/**
 * The webhook payload of a refund for one party (event `clicks.refunded`), collected in the
 * refund's result so that the caller writes it to the webhook outbox in the refund's transaction.
 */
export interface RefundEvent {
  type: 'clicks.refunded';
  accountId: number;
  data: {
    refundId: number;
    reason: RefundReason;
    role: 'advertiser' | 'publisher';
    clicks: number;
    /** Advertiser: money given back. Publisher: money taken back from its balance. */
    amountMicros: number;
    /** Publisher only: its share that its balance could not give back (the platform bore it). */
    unrecoveredMicros: number;
  };
}

export interface RefundResult {
  /** Null for a dry run. */
  id: number | null;
  dryRun: boolean;
  reason: RefundReason;
  comment: string;
  createdAt: Date;
  createdBy: number | null;
  /** How many clicks it refunds. */
  clickCount: number;
  plan: RefundPlan;
  skipped: { clickId: string; why: SkipReason }[];
  /** Webhook payloads, one per party; empty for a dry run. */
  events: RefundEvent[];
}

export interface RefundSettings {
  timeZone: string;
  now: Date;
}

/**
 * Refunds the billed, not yet refunded clicks of a selection, or (dry run) says what that would
 * move. Both run the same code in one transaction up to the writes: the clicks are found, every
 * balance the refund moves is locked in id order, and the money is split (planRefund). A run then
 * records the refund and its clicks, posts the ledger rows and adds the refunded counters to the
 * rollups on each click's own day and place. Refused with 422 when nothing is refundable, the
 * selection is too wide, or the platform's balance cannot bear its part.
 */
export async function refundClicks(db: Db, request: RefundRequest, settings: RefundSettings): Promise<RefundResult> {
  const platformAccountId = await findOrCreatePlatformAccount(db);
  return inTransaction(db, async (trx) => {
    const selected = await findCandidateClicks(trx, request.selection, MAX_REFUND_CLICKS + 1);
    if (selected.length > MAX_REFUND_CLICKS) {
      throw invalidField(
        selectionField(request.selection),
        `More than ${MAX_REFUND_CLICKS} clicks match; refund a narrower range.`,
      );
    }
    const skipped = skippedClicks(request.selection, selected);
    const fresh = selected.filter((click) => click.status === 'billed' && !click.refunded);
    const accounts = new Set<number>([platformAccountId]);
    for (const click of fresh) {
      accounts.add(click.advertiser_id);
      accounts.add(click.publisher_id);
    }
    const balances = await lockBalances(trx, [...accounts]);
    const plan = planRefund(
      fresh.map((click) => ({
        clickId: click.click_id,
        advertiserId: click.advertiser_id,
        publisherId: click.publisher_id,
        chargeMicros: click.charge_micros,
        publisherMicros: click.publisher_micros,
        marginMicros: click.margin_micros,
      })),
      balances,
      platformAccountId,
    );
    const result: RefundResult = {
      id: null,
      dryRun: request.dryRun,
      reason: request.reason,
      comment: request.comment,
      createdAt: settings.now,
      createdBy: request.operatorId,
      clickCount: plan.clicks.length,
      plan,
      skipped,
      events: [],
    };
    if (request.dryRun) return result;
    if (fresh.length === 0)
      throw invalidField(selectionField(request.selection), 'No billed click that is not refunded yet matches.');
    if (plan.platformShortfallMicros > 0) {
      throw invalidField(
        selectionField(request.selection),
        "The platform's balance cannot bear the margins and the shares publishers cannot give back.",
      );
    }
    const refund = await insertRefund(trx, {
      reason: request.reason,
      comment: request.comment,
      created_by: request.operatorId,
      created_at: settings.now,
      clicks: plan.clicks.length,
      refunded_micros: plan.refundedMicros,
      publisher_reversed_micros: plan.publisherReversedMicros,
      publisher_unrecovered_micros: plan.publisherUnrecoveredMicros,
      margin_reversed_micros: plan.marginReversedMicros,
    });
    await recordRefund(trx, refund, plan, fresh, platformAccountId, settings.timeZone);
    const events = refundEvents(refund, plan);
    // In the refund's transaction: each party hears of it exactly when the money moved.
    for (const event of events) {
      await emitWebhookEvent(trx, {
        type: event.type,
        accountId: event.accountId,
        data: {
          refundId: event.data.refundId,
          reason: event.data.reason,
          role: event.data.role,
          clicks: event.data.clicks,
          amount: microsToAmount(event.data.amountMicros),
          unrecovered: microsToAmount(event.data.unrecoveredMicros),
        },
        now: settings.now,
        id: `evt_refund_${refund.id}_${event.data.role}_${event.accountId}`,
      });
    }
    return { ...result, id: refund.id, events };
  });
}

/** The writes of a run: the refunded clicks (each once), the ledger rows, the rollup counters. */
async function recordRefund(
  trx: Db,
  refund: RefundRow,
  plan: RefundPlan,
  clicks: readonly CandidateClick[],
  platformAccountId: number,
  timeZone: string,
): Promise<void> {
  const recorded = await insertRefundedClicks(
    trx,
    plan.clicks.map((click) => ({
      click_id: click.clickId,
      refund_id: refund.id,
      advertiser_id: click.advertiserId,
      publisher_id: click.publisherId,
      charge_micros: click.chargeMicros,
      publisher_reversed_micros: click.publisherReversedMicros,
      publisher_unrecovered_micros: click.publisherUnrecoveredMicros,
      margin_micros: click.marginMicros,
    })),
  );
  if (recorded !== plan.clicks.length) {
    throw new DomainError(
      'refund_race',
      'Another refund took some of these clicks at the same time; nothing was changed. Try again.',
    );
  }
  const changes = refundLedgerChanges(
    plan,
    { id: refund.id, reason: refund.reason, createdBy: refund.created_by },
    platformAccountId,
  );
  for (const change of changes) await applyLedgerChange(trx, change);
  const clickOf = new Map(clicks.map((click) => [click.click_id, click]));
  const events: TrafficEvent[] = plan.clicks.map((reversal) => {
    const click = clickOf.get(reversal.clickId) as CandidateClick;
    return {
      at: new Date(click.created_at).getTime(),
      campaignId: click.campaign_id,
      offerId: click.offer_id,
      siteId: click.site_id,
      blockId: click.block_id,
      device: click.device as DeviceId,
      country: click.country,
      refundedClicks: 1,
      refundedSpendMicros: reversal.chargeMicros,
      refundedPublisherIncomeMicros: reversal.publisherReversedMicros,
    };
  });
  await recordEvents(trx, events, timeZone);
}

function refundEvents(refund: RefundRow, plan: RefundPlan): RefundEvent[] {
  const base = { refundId: refund.id, reason: refund.reason };
  return [
    ...plan.advertisers.map((part) => ({
      type: 'clicks.refunded' as const,
      accountId: part.accountId,
      data: {
        ...base,
        role: 'advertiser' as const,
        clicks: part.clicks,
        amountMicros: part.refundedMicros,
        unrecoveredMicros: 0,
      },
    })),
    ...plan.publishers.map((part) => ({
      type: 'clicks.refunded' as const,
      accountId: part.accountId,
      data: {
        ...base,
        role: 'publisher' as const,
        clicks: part.clicks,
        amountMicros: part.reversedMicros,
        unrecoveredMicros: part.unrecoveredMicros,
      },
    })),
  ];
}

/** Named clicks that are not refunded, each with why. */
function skippedClicks(selection: ClickSelection, selected: readonly CandidateClick[]): RefundResult['skipped'] {
  if (!('clickIds' in selection)) return [];
  const found = new Map(selected.map((click) => [click.click_id, click]));
  const skipped: RefundResult['skipped'] = [];
  for (const clickId of new Set(selection.clickIds)) {
    const click = found.get(clickId);
    if (click === undefined) skipped.push({ clickId, why: 'unknown' });
    else if (click.status !== 'billed') skipped.push({ clickId, why: 'not_billed' });
    else if (click.refunded) skipped.push({ clickId, why: 'refunded' });
  }
  return skipped;
}

const selectionField = (selection: ClickSelection) => ('clickIds' in selection ? 'clickIds' : 'from');

/** A stored refund as its result reads: the parties' parts come from its refunded clicks. */
export async function getRefund(db: Db, id: number): Promise<RefundResult> {
  const refund = await findRefund(db, id);
  if (refund === undefined) throw notFound('Refund');
  const [result] = await storedRefundResults(db, [refund]);
  return result as RefundResult;
}

export async function storedRefundResults(db: Db, refunds: readonly RefundRow[]): Promise<RefundResult[]> {
  const parties = await refundParties(
    db,
    refunds.map((refund) => refund.id),
  );
  return refunds.map((refund) => ({
    id: refund.id,
    dryRun: false,
    reason: refund.reason,
    comment: refund.comment,
    createdAt: refund.created_at,
    createdBy: refund.created_by,
    clickCount: refund.clicks,
    plan: {
      clicks: [],
      advertisers: parties.advertisers
        .filter((row) => row.refund_id === refund.id)
        .map((row) => ({ accountId: row.advertiser_id, clicks: Number(row.clicks), refundedMicros: Number(row.charge_micros) })),
      publishers: parties.publishers
        .filter((row) => row.refund_id === refund.id)
        .map((row) => ({
          accountId: row.publisher_id,
          clicks: Number(row.clicks),
          reversedMicros: Number(row.reversed_micros),
          unrecoveredMicros: Number(row.unrecovered_micros),
        })),
      refundedMicros: refund.refunded_micros,
      publisherReversedMicros: refund.publisher_reversed_micros,
      publisherUnrecoveredMicros: refund.publisher_unrecovered_micros,
      marginReversedMicros: refund.margin_reversed_micros,
      platformShortfallMicros: 0,
    },
    skipped: [],
    events: [],
  }));
}

import type { LedgerChange } from '../ledger/index.ts';

/** A billed click as a refund sees it: who paid, who earned, how much each. */
export interface RefundableClick {
  clickId: string;
  advertiserId: number;
  publisherId: number;
  chargeMicros: number;
  publisherMicros: number;
  marginMicros: number;
}

/** One click's part of a refund. */
export interface ClickReversal {
  clickId: string;
  advertiserId: number;
  publisherId: number;
  chargeMicros: number;
  /** The publisher's share the click earned. */
  publisherMicros: number;
  /** Taken back from the publisher's balance. */
  publisherReversedMicros: number;
  /** The publisher's share its balance could not cover: the platform bears it. */
  publisherUnrecoveredMicros: number;
  marginMicros: number;
}

export interface AdvertiserPart {
  accountId: number;
  clicks: number;
  refundedMicros: number;
}

export interface PublisherPart {
  accountId: number;
  clicks: number;
  reversedMicros: number;
  unrecoveredMicros: number;
}

/** What a refund moves, before it is applied: the same for a dry run and a run. */
export interface RefundPlan {
  clicks: ClickReversal[];
  advertisers: AdvertiserPart[];
  publishers: PublisherPart[];
  refundedMicros: number;
  publisherReversedMicros: number;
  publisherUnrecoveredMicros: number;
  marginReversedMicros: number;
  /** What the platform's balance lacks to bear its part (margin and unrecovered shares); 0 when it can. */
  platformShortfallMicros: number;
}

/**
 * Splits a refund between the parties. The advertiser gets back every click's charge. Each
 * publisher gives back its shares as far as its balance goes, click by click in the order given
 * (a publisher's balance never goes below zero: what it was already paid out stays paid). The
 * platform gives back its margins and bears the shares publishers could not give back. The
 * charges equal the reversed shares plus the unrecovered shares plus the margins, so the refund's
 * ledger rows sum to zero, as the billing's did.
 */
export function planRefund(
  clicks: readonly RefundableClick[],
  balances: ReadonlyMap<number, number>,
  platformAccountId: number,
): RefundPlan {
  const left = new Map<number, number>();
  const advertisers = new Map<number, AdvertiserPart>();
  const publishers = new Map<number, PublisherPart>();
  const reversals: ClickReversal[] = [];
  let margin = 0;
  let unrecovered = 0;
  for (const click of clicks) {
    const available = left.get(click.publisherId) ?? balances.get(click.publisherId) ?? 0;
    const reversed = Math.min(click.publisherMicros, Math.max(available, 0));
    left.set(click.publisherId, available - reversed);
    const reversal = {
      ...click,
      publisherReversedMicros: reversed,
      publisherUnrecoveredMicros: click.publisherMicros - reversed,
    };
    reversals.push(reversal);
    const advertiser = advertisers.get(click.advertiserId) ?? { accountId: click.advertiserId, clicks: 0, refundedMicros: 0 };
    advertiser.clicks += 1;
    advertiser.refundedMicros += click.chargeMicros;
    advertisers.set(click.advertiserId, advertiser);
    const publisher = publishers.get(click.publisherId) ?? {
      accountId: click.publisherId,
      clicks: 0,
      reversedMicros: 0,
      unrecoveredMicros: 0,
    };
    publisher.clicks += 1;
    publisher.reversedMicros += reversal.publisherReversedMicros;
    publisher.unrecoveredMicros += reversal.publisherUnrecoveredMicros;
    publishers.set(click.publisherId, publisher);
    margin += click.marginMicros;
    unrecovered += reversal.publisherUnrecoveredMicros;
  }
  const byId = <T extends { accountId: number }>(parts: Map<number, T>) =>
    [...parts.values()].sort((a, b) => a.accountId - b.accountId);
  const platformBalance = balances.get(platformAccountId) ?? 0;
  return {
    clicks: reversals,
    advertisers: byId(advertisers),
    publishers: byId(publishers),
    refundedMicros: reversals.reduce((sum, click) => sum + click.chargeMicros, 0),
    publisherReversedMicros: reversals.reduce((sum, click) => sum + click.publisherReversedMicros, 0),
    publisherUnrecoveredMicros: unrecovered,
    marginReversedMicros: margin,
    platformShortfallMicros: Math.max(0, margin + unrecovered - platformBalance),
  };
}

/**
 * The refund's ledger rows, all referencing the refund: per advertiser its credit
 * (`refund_charge`), per publisher its debit (`refund_revenue`), and the platform's debits: its
 * margin (`refund_margin`) and, per publisher that could not give its share back, that share
 * (`refund_unrecovered`, counterparty the publisher), so who bore what stays readable in the ledger.
 */
export function refundLedgerChanges(
  plan: RefundPlan,
  refund: { id: number; reason: string; createdBy: number | null },
  platformAccountId: number,
): LedgerChange[] {
  const common = { reference: String(refund.id), createdBy: refund.createdBy };
  const counted = (clicks: number) => `${refund.reason}: ${clicks === 1 ? '1 click' : `${clicks} clicks`}`;
  const onlyPublisher = plan.publishers.length === 1 ? (plan.publishers[0]?.accountId ?? null) : null;
  const onlyAdvertiser = plan.advertisers.length === 1 ? (plan.advertisers[0]?.accountId ?? null) : null;
  const changes: LedgerChange[] = [];
  for (const advertiser of plan.advertisers) {
    changes.push({
      ...common,
      accountId: advertiser.accountId,
      amountMicros: advertiser.refundedMicros,
      kind: 'refund_charge',
      counterpartyId: onlyPublisher,
      comment: counted(advertiser.clicks),
    });
  }
  for (const publisher of plan.publishers) {
    if (publisher.reversedMicros === 0) continue;
    changes.push({
      ...common,
      accountId: publisher.accountId,
      amountMicros: -publisher.reversedMicros,
      kind: 'refund_revenue',
      counterpartyId: onlyAdvertiser,
      comment: counted(publisher.clicks),
    });
  }
  if (plan.marginReversedMicros > 0) {
    changes.push({
      ...common,
      accountId: platformAccountId,
      amountMicros: -plan.marginReversedMicros,
      kind: 'refund_margin',
      counterpartyId: onlyAdvertiser,
      comment: counted(plan.clicks.length),
    });
  }
  for (const publisher of plan.publishers) {
    if (publisher.unrecoveredMicros === 0) continue;
    changes.push({
      ...common,
      accountId: platformAccountId,
      amountMicros: -publisher.unrecoveredMicros,
      kind: 'refund_unrecovered',
      counterpartyId: publisher.accountId,
      comment: `${refund.reason}: the publisher's balance could not cover its share`,
    });
  }
  return changes;
}

import { type Static, Type } from '@sinclair/typebox';
import { REFUND_REASONS } from '../../db/schema.ts';
import { microsToAmount } from '../../money.ts';
import type { RefundResult } from './refund-service.ts';

export const ReasonSchema = (description: string) =>
  Type.Union(
    REFUND_REASONS.map((reason) => Type.Literal(reason)),
    { description },
  );

const REASON_TEXT =
  'Why the clicks are invalid: bot, duplicate, datacenter (data-centre addresses), click_flood, publisher_fraud, manual, or one of the automatic rules of invalid traffic: no_opportunity, repeat_click, concentration, network_mismatch (docs/invalid-traffic.md).';

const AdvertiserPartSchema = Type.Object(
  {
    userId: Type.Integer({ description: 'The advertiser account.' }),
    clicks: Type.Integer({ description: 'Its clicks in the refund.' }),
    amount: Type.Number({ description: 'Given back to its balance, in currency units.' }),
  },
  { description: "An advertiser's part of a refund." },
);

const PublisherPartSchema = Type.Object(
  {
    userId: Type.Integer({ description: 'The publisher account.' }),
    clicks: Type.Integer({ description: 'Its clicks in the refund.' }),
    reversed: Type.Number({ description: 'Its shares taken back from its balance, in currency units.' }),
    unrecovered: Type.Number({
      description: 'Its shares its balance could not give back (already paid out), borne by the platform, in currency units.',
    }),
  },
  { description: "A publisher's part of a refund." },
);

export const RefundSchema = Type.Object(
  {
    id: Type.Union([Type.Integer(), Type.Null()], { description: 'Refund id; null for a dry run.' }),
    dryRun: Type.Boolean({ description: 'True when nothing was changed: what the refund would move.' }),
    reason: ReasonSchema(REASON_TEXT),
    comment: Type.String({ description: "The operator's note." }),
    date: Type.String({ format: 'date-time', description: 'When it was applied (or computed, for a dry run), ISO 8601.' }),
    operatorId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The operator who applied it; null when the automatic click flood detector did.',
    }),
    clicks: Type.Integer({ description: 'Clicks refunded.' }),
    amount: Type.Number({ description: 'Given back to advertisers (the clicks’ charges), in currency units.' }),
    publisherReversed: Type.Number({ description: "Taken back from publishers' balances, in currency units." }),
    publisherUnrecovered: Type.Number({
      description: "Publishers' shares their balances could not give back; the platform bears them. Currency units.",
    }),
    marginReversed: Type.Number({ description: "The platform's margin on these clicks, given back. Currency units." }),
    platformShortfall: Type.Number({
      description:
        "What the platform's balance lacks to bear its part (margin plus unrecovered shares); a run is refused (422) when it is not 0.",
    }),
    advertisers: Type.Array(AdvertiserPartSchema, { description: 'Per advertiser, what it gets back.' }),
    publishers: Type.Array(PublisherPartSchema, { description: 'Per publisher, what it gives back.' }),
    skipped: Type.Array(
      Type.Object(
        {
          clickId: Type.String({ description: 'A click id of the request.' }),
          why: Type.Union([Type.Literal('unknown'), Type.Literal('not_billed'), Type.Literal('refunded')], {
            description: 'unknown (no such settled click), not_billed (recorded but never billed) or refunded (already).',
          }),
        },
        { description: 'A named click that is not refunded.' },
      ),
      { description: 'Click ids of the request that are not refunded, with why (selection by ids only).' },
    ),
  },
  { description: 'A refund of invalid clicks: what it moved (or, dry run, would move) and for whom.' },
);

export function toRefund(result: RefundResult): Static<typeof RefundSchema> {
  const { plan } = result;
  return {
    id: result.id,
    dryRun: result.dryRun,
    reason: result.reason,
    comment: result.comment,
    date: result.createdAt.toISOString(),
    operatorId: result.createdBy,
    clicks: result.clickCount,
    amount: microsToAmount(plan.refundedMicros),
    publisherReversed: microsToAmount(plan.publisherReversedMicros),
    publisherUnrecovered: microsToAmount(plan.publisherUnrecoveredMicros),
    marginReversed: microsToAmount(plan.marginReversedMicros),
    platformShortfall: microsToAmount(plan.platformShortfallMicros),
    advertisers: plan.advertisers.map((part) => ({
      userId: part.accountId,
      clicks: part.clicks,
      amount: microsToAmount(part.refundedMicros),
    })),
    publishers: plan.publishers.map((part) => ({
      userId: part.accountId,
      clicks: part.clicks,
      reversed: microsToAmount(part.reversedMicros),
      unrecovered: microsToAmount(part.unrecoveredMicros),
    })),
    skipped: result.skipped,
  };
}

const refundedClickFields = {
  clickId: Type.String({ description: 'The click id (as passed to the ad URL in `{click_id}`).' }),
  date: Type.String({ format: 'date-time', description: 'When the click happened, ISO 8601.' }),
  refundId: Type.Integer({ description: 'The refund that took it.' }),
  refundedAt: Type.String({ format: 'date-time', description: 'When it was refunded, ISO 8601.' }),
  reason: ReasonSchema(REASON_TEXT),
  siteId: Type.Integer({ description: 'Site the click came from.' }),
  blockId: Type.Integer({ description: 'Block the click came from.' }),
};

export const AdvertiserRefundedClickSchema = Type.Object(
  {
    ...refundedClickFields,
    campaignId: Type.Integer({ description: 'Campaign of the ad clicked.' }),
    offerId: Type.Integer({ description: 'The ad clicked.' }),
    amount: Type.Number({ description: 'Given back to the balance (what the click was charged), in currency units.' }),
  },
  { description: 'A click of the advertiser found invalid and refunded.' },
);

export const PublisherRefundedClickSchema = Type.Object(
  {
    ...refundedClickFields,
    income: Type.Number({ description: 'Taken back from the balance (the share it had earned), in currency units.' }),
    unrecovered: Type.Number({
      description:
        'The part of its share the balance could not give back (already paid out); the platform bore it. Currency units.',
    }),
  },
  { description: 'A click on a site of the publisher found invalid: its share was reversed.' },
);

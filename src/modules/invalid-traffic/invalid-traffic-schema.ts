import { type TSchema, Type } from '@sinclair/typebox';
import { Id, Text } from '../../http/input-types.ts';
import { microsToAmount } from '../../money.ts';
import type { ReasonRow } from './invalid-traffic-repository.ts';
import { INVALID_REASONS, OUTCOMES } from './reasons.ts';

/** The schemas of invalid traffic's disclosure, shared by the advertiser's, the publisher's and the operators' routes. */

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  );

export const OutcomeSchema = literals(
  OUTCOMES,
  '`refused`: refused on arrival as general invalid traffic, never billed; `refunded`: billed, then found invalid and refunded.',
);

export const ReasonSchema = literals(
  INVALID_REASONS,
  'Why the clicks are invalid (docs/invalid-traffic.md, "Reasons"): refusals bot, automation, datacenter, prefetch, foreign_site; refunds no_opportunity, repeat_click, concentration, network_mismatch, click_flood, or an operator’s bot, duplicate, datacenter, publisher_fraud, manual.',
);

export const PeriodQuery = {
  dateFrom: Type.Optional(Text('First day, YYYY-MM-DD (inclusive, platform time zone) of the clicks. None: from the first.')),
  dateTo: Type.Optional(Text('Last day, YYYY-MM-DD (inclusive, platform time zone) of the clicks. None: up to today.')),
};

const period = {
  dateFrom: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
    description: 'The first day asked for; null: from the first.',
  }),
  dateTo: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
    description: 'The last day asked for; null: up to today.',
  }),
};

const reasonRow = (money: Record<string, TSchema>) =>
  Type.Object(
    {
      outcome: OutcomeSchema,
      reason: ReasonSchema,
      clicks: Type.Integer({ description: 'Clicks of this outcome and reason, counted on the click’s own day.' }),
      ...money,
    },
    { description: 'Invalid clicks of one outcome and reason.' },
  );

export const AdvertiserInvalidTrafficSchema = Type.Object(
  {
    ...period,
    campaignId: Type.Union([Type.Integer(), Type.Null()], { description: 'The campaign asked for; null: every campaign.' }),
    refusedClicks: Type.Integer({ description: 'Clicks refused on arrival as invalid: never charged, nothing to give back.' }),
    refundedClicks: Type.Integer({ description: 'Billed clicks found invalid afterwards and refunded.' }),
    refundedSpend: Type.Number({
      description: 'What the refunded clicks had cost, given back to the balance, in currency units.',
    }),
    reasons: Type.Array(
      reasonRow({
        amount: Type.Number({ description: 'Money given back for these clicks, in currency units (0 for refused clicks).' }),
      }),
      { description: 'Refused first, then refunded; most clicks first.' },
    ),
  },
  { description: 'What was filtered out of an advertiser’s clicks, and why.' },
);

export const PublisherInvalidTrafficSchema = Type.Object(
  {
    ...period,
    siteId: Type.Union([Type.Integer(), Type.Null()], { description: 'The site asked for; null: every site.' }),
    refusedClicks: Type.Integer({ description: 'Clicks refused on arrival as invalid: never paid.' }),
    refundedClicks: Type.Integer({ description: 'Paid clicks found invalid afterwards, whose income was taken back.' }),
    reversedIncome: Type.Number({ description: 'Income taken back for the refunded clicks, in currency units.' }),
    reasons: Type.Array(
      reasonRow({
        income: Type.Number({ description: 'Income taken back for these clicks, in currency units (0 for refused clicks).' }),
      }),
      { description: 'Refused first, then refunded; most clicks first.' },
    ),
  },
  { description: 'Which clicks on a publisher’s sites were not paid, and why (the rules’ thresholds are not disclosed).' },
);

export const AdvertiserInvalidTrafficQuery = Type.Object({
  ...PeriodQuery,
  campaignId: Type.Optional(Id('Only clicks on this campaign.')),
});

export const PublisherInvalidTrafficQuery = Type.Object({
  ...PeriodQuery,
  siteId: Type.Optional(Id('Only clicks on this site.')),
});

const sum = (rows: readonly ReasonRow[], outcome: ReasonRow['outcome'], value: (row: ReasonRow) => number) =>
  rows.filter((row) => row.outcome === outcome).reduce((total, row) => total + value(row), 0);

export function toAdvertiserInvalidTraffic(rows: readonly ReasonRow[]) {
  return {
    refusedClicks: sum(rows, 'refused', (row) => row.clicks),
    refundedClicks: sum(rows, 'refunded', (row) => row.clicks),
    refundedSpend: microsToAmount(sum(rows, 'refunded', (row) => row.charge_micros)),
    reasons: rows.map((row) => ({
      outcome: row.outcome,
      reason: row.reason,
      clicks: row.clicks,
      amount: microsToAmount(row.charge_micros),
    })),
  };
}

export function toPublisherInvalidTraffic(rows: readonly ReasonRow[]) {
  return {
    refusedClicks: sum(rows, 'refused', (row) => row.clicks),
    refundedClicks: sum(rows, 'refunded', (row) => row.clicks),
    reversedIncome: microsToAmount(sum(rows, 'refunded', (row) => row.publisher_micros)),
    reasons: rows.map((row) => ({
      outcome: row.outcome,
      reason: row.reason,
      clicks: row.clicks,
      income: microsToAmount(row.publisher_micros),
    })),
  };
}

import { Type } from '@sinclair/typebox';
import { microsToAmount, microsToCents } from '../../../money.ts';
import { deriveRates } from '../../statistics/rates.ts';

/** What the rollup holds for a publisher: counts and what the publisher earned. */
export interface PublisherTotals {
  views: number;
  clicks: number;
  incomeMicros: number;
  served: number;
  refundedClicks: number;
  refundedIncomeMicros: number;
}

export const ZERO_TOTALS: PublisherTotals = {
  views: 0,
  clicks: 0,
  incomeMicros: 0,
  served: 0,
  refundedClicks: 0,
  refundedIncomeMicros: 0,
};

/** The statistics fields shared by Website and publisher Statistics rows, with their spec types. */
export const publisherFigureFields = {
  views: Type.Integer({
    description: 'Viewable impressions in the period: teasers at least half in view for a second, as the loader reports them.',
  }),
  clicks: Type.Integer({ description: 'Clicks on teasers in the period.' }),
  ctr: Type.Number({ description: 'Click-through rate: clicks / views * 100.' }),
  cpm: Type.Number({ description: 'Income per thousand viewable impressions, in currency units: income / views * 1000.' }),
  money: Type.Integer({ description: 'Income in whole cents of the account currency (rounded down).' }),
  income: Type.Number({ description: 'The same income as a number in currency units, 4 fraction digits.' }),
  served: Type.Integer({
    description:
      'Teasers served in the period (extension); `views` counts the impressions among them, viewable ones once that is measured.',
  }),
  refundedClicks: Type.Integer({
    description:
      'Clicks found invalid after billing and refunded (extension), on the click’s own day; `clicks` still includes them.',
  }),
  refundedIncome: Type.Number({
    description:
      'Income taken back for refunded clicks, in currency units (extension); `income` is what was earned before refunds.',
  }),
};

/**
 * The publisher's view of a total: the rates of DESIGN.md §4 computed on the publisher's income
 * (not on what advertisers paid), `money` in cents as the spec types it, `income` in units.
 */
export function publisherFigures(totals: PublisherTotals) {
  const rates = deriveRates({ views: totals.views, clicks: totals.clicks, spendMicros: totals.incomeMicros, orders: 0 });
  return {
    views: totals.views,
    clicks: totals.clicks,
    ctr: rates.ctr,
    cpm: rates.cpm,
    money: microsToCents(totals.incomeMicros),
    income: microsToAmount(totals.incomeMicros),
    served: totals.served,
    refundedClicks: totals.refundedClicks,
    refundedIncome: microsToAmount(totals.refundedIncomeMicros),
  };
}

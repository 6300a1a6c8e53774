import { Type } from '@sinclair/typebox';
import { microsToAmount, microsToCents } from '../../../money.ts';
import { deriveRates } from '../../statistics/rates.ts';

/** What the rollup holds for a publisher: counts and what the publisher earned. */
export interface PublisherTotals {
  views: number;
  clicks: number;
  incomeMicros: number;
}

export const ZERO_TOTALS: PublisherTotals = { views: 0, clicks: 0, incomeMicros: 0 };

/** The statistics fields shared by Website and publisher Statistics rows, with their spec types. */
export const publisherFigureFields = {
  views: Type.Integer({ description: 'Impressions of teasers in the period.' }),
  clicks: Type.Integer({ description: 'Clicks on teasers in the period.' }),
  ctr: Type.Number({ description: 'Click-through rate: clicks / views * 100.' }),
  cpm: Type.Number({ description: 'Income per thousand impressions, in currency units: income / views * 1000.' }),
  money: Type.Integer({ description: 'Income in whole cents of the account currency (rounded down).' }),
  income: Type.Number({ description: 'The same income as a number in currency units, 4 fraction digits.' }),
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
  };
}

import { Type } from '@sinclair/typebox';
import { microsToAmount, microsToCents } from '../../money.ts';
import type { PublisherTotals, RollupCounter, TargetId, Totals } from './vocabulary.ts';

/** The advertiser's totals of summed rollup counters, `orders` counting the goals of `targetId`. */
export function totalsOf(sums: Record<RollupCounter, number>, targetId: TargetId): Totals {
  const goals = [sums.conversions_purchase, sums.conversions_registration, sums.conversions_intermediate] as const;
  const pixel = [
    sums.pixel_conversions_purchase,
    sums.pixel_conversions_registration,
    sums.pixel_conversions_intermediate,
  ] as const;
  const ofTarget = (counts: readonly [number, number, number]) =>
    targetId === 0 ? counts[0] + counts[1] + counts[2] : (counts[targetId - 1] ?? 0);
  return {
    views: sums.views,
    clicks: sums.clicks,
    spendMicros: sums.spend_micros,
    orders: ofTarget(goals),
    pixelOrders: ofTarget(pixel),
    served: sums.served,
    refundedClicks: sums.refunded_clicks,
    refundedSpendMicros: sums.refunded_spend_micros,
    invalidClicks: sums.invalid_clicks,
  };
}

export interface Rates {
  ctr: number;
  cr: number;
  cpm: number;
  cpc: number;
  cpo: number;
}

const round4 = (value: number): number => Math.round(value * 10_000) / 10_000;

/**
 * The derived rates of every statistics answer (docs/advertiser-campaigns.md): ctr = clicks/views·100,
 * cr = orders/clicks·100, cpm = money/views·1000, cpc = money/clicks, cpo = money/orders; 0 when
 * the divisor is 0. Money is in currency units, every rate rounded to 4 fraction digits.
 */
export function deriveRates(totals: Pick<Totals, 'views' | 'clicks' | 'spendMicros' | 'orders'>): Rates {
  const money = totals.spendMicros / 1_000_000;
  return {
    ctr: totals.views > 0 ? round4((totals.clicks / totals.views) * 100) : 0,
    cr: totals.clicks > 0 ? round4((totals.orders / totals.clicks) * 100) : 0,
    cpm: totals.views > 0 ? round4((money / totals.views) * 1000) : 0,
    cpc: totals.clicks > 0 ? round4(money / totals.clicks) : 0,
    cpo: totals.orders > 0 ? round4(money / totals.orders) : 0,
  };
}

/** Extensions reported beside views, clicks and money wherever the advertiser's statistics are. */
export const servedAndRefundedProperties = {
  served: Type.Integer({
    description: 'Teasers served (extension); `views` counts the impressions among them, viewable ones once that is measured.',
  }),
  refundedClicks: Type.Integer({
    description:
      'Clicks found invalid after billing and refunded (extension), counted on the click’s own day and place; `clicks` still includes them.',
  }),
  refundedSpend: Type.Number({
    description:
      'Money given back for refunded clicks, in currency units (extension); `money` is what was charged before refunds.',
  }),
  invalidClicks: Type.Integer({
    description:
      'Clicks refused on arrival as invalid traffic (robots, automation, data-centre networks, prefetches, foreign sites), never charged (extension); `clicks` does not include them. Why: GET /advertiser/invalid-traffic.',
  }),
  grossClicks: Type.Integer({ description: 'Every click recorded: `clicks` plus `invalidClicks` (extension).' }),
  netClicks: Type.Integer({ description: 'Clicks charged and kept: `clicks` minus `refundedClicks` (extension).' }),
  netSpend: Type.Number({
    description: 'Money kept by the network, in currency units: `money` minus `refundedSpend` (extension).',
  }),
};

/** Where the conversions of `orders` came from: every figure block that shows orders carries both. */
export const conversionSourceProperties = {
  authenticatedOrders: Type.Integer({
    description:
      'Those of `orders` the advertiser’s server reported with its postback key (extension): authenticated conversions.',
  }),
  pixelOrders: Type.Integer({
    description:
      'Those of `orders` the conversion pixel reported (extension): counted from the browser that made the click, not authenticated.',
  }),
};

/** The statistics block shared by Campaign, Ad and the statistics rows. */
export const figureProperties = {
  views: Type.Integer({ description: 'Viewable impressions (shows): teasers at least half in view for a second.' }),
  clicks: Type.Integer({ description: 'Transitions (clicks).' }),
  money: Type.Number({ description: 'Expenses, in currency units.' }),
  orders: Type.Integer({ description: 'Conversions of the goals selected by targetId.' }),
  ...conversionSourceProperties,
  cpm: Type.Number({ description: 'Cost per thousand shows: money / views · 1000.' }),
  cpo: Type.Number({ description: 'Cost per order: money / orders.' }),
  cr: Type.Number({ description: 'Conversion rate, percent: orders / clicks · 100.' }),
  cpc: Type.Number({ description: 'Cost per click: money / clicks.' }),
  ctr: Type.Number({ description: 'Click-through rate, percent: clicks / views · 100 (extension).' }),
  ...servedAndRefundedProperties,
};

/** The statistics block of Campaign, Ad and Campaign Statistics: counts, money and rates. */
export function advertiserFigures(totals: Totals) {
  return {
    views: totals.views,
    clicks: totals.clicks,
    money: microsToAmount(totals.spendMicros),
    orders: totals.orders,
    authenticatedOrders: totals.orders - totals.pixelOrders,
    pixelOrders: totals.pixelOrders,
    ...deriveRates(totals),
    served: totals.served,
    refundedClicks: totals.refundedClicks,
    refundedSpend: microsToAmount(totals.refundedSpendMicros),
    invalidClicks: totals.invalidClicks,
    grossClicks: totals.clicks + totals.invalidClicks,
    netClicks: totals.clicks - totals.refundedClicks,
    netSpend: microsToAmount(totals.spendMicros - totals.refundedSpendMicros),
  };
}

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
  invalidClicks: Type.Integer({
    description:
      'Clicks refused on arrival as invalid traffic (robots, automation, data-centre networks, prefetches, foreign sites), never paid (extension); `clicks` does not include them. Why: GET /webmaster/invalid-traffic.',
  }),
  grossClicks: Type.Integer({ description: 'Every click recorded: `clicks` plus `invalidClicks` (extension).' }),
  netClicks: Type.Integer({ description: 'Clicks paid for and kept: `clicks` minus `refundedClicks` (extension).' }),
  netIncome: Type.Number({
    description: 'Income kept, in currency units: `income` minus `refundedIncome` (extension).',
  }),
};

/**
 * The publisher's view of a total: the rates of `deriveRates` computed on the publisher's income
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
    invalidClicks: totals.invalidClicks,
    grossClicks: totals.clicks + totals.invalidClicks,
    netClicks: totals.clicks - totals.refundedClicks,
    netIncome: microsToAmount(totals.incomeMicros - totals.refundedIncomeMicros),
  };
}

/** The publisher's totals of summed rollup counters. */
export const publisherTotalsOf = (sums: Record<RollupCounter, number>): PublisherTotals => ({
  views: sums.views,
  clicks: sums.clicks,
  incomeMicros: sums.publisher_income_micros,
  served: sums.served,
  refundedClicks: sums.refunded_clicks,
  refundedIncomeMicros: sums.refunded_publisher_income_micros,
  invalidClicks: sums.invalid_clicks,
});

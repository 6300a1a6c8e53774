import { microsToAmount } from '../../money.ts';

/** Totals from the rollup that rates are derived from. */
export interface Totals {
  views: number;
  clicks: number;
  spendMicros: number;
  orders: number;
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
 * The derived rates of DESIGN.md §4: ctr = clicks/views·100, cr = orders/clicks·100,
 * cpm = money/views·1000, cpc = money/clicks, cpo = money/orders; 0 when the divisor is 0.
 * Money is in currency units, every rate rounded to 4 fraction digits.
 */
export function deriveRates(totals: Totals): Rates {
  const money = totals.spendMicros / 1_000_000;
  return {
    ctr: totals.views > 0 ? round4((totals.clicks / totals.views) * 100) : 0,
    cr: totals.clicks > 0 ? round4((totals.orders / totals.clicks) * 100) : 0,
    cpm: totals.views > 0 ? round4((money / totals.views) * 1000) : 0,
    cpc: totals.clicks > 0 ? round4(money / totals.clicks) : 0,
    cpo: totals.orders > 0 ? round4(money / totals.orders) : 0,
  };
}

/** The statistics block of Campaign, Ad and Campaign Statistics: counts, money and rates. */
export function advertiserFigures(totals: Totals) {
  return {
    views: totals.views,
    clicks: totals.clicks,
    money: microsToAmount(totals.spendMicros),
    orders: totals.orders,
    ...deriveRates(totals),
  };
}

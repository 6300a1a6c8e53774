import { microsToAmount } from '../../money.ts';
import type { GoalId, RollupCounter } from './record-events.ts';

/** Totals from the rollup that rates are derived from, and the served and refunded figures beside them. */
export interface Totals {
  views: number;
  clicks: number;
  spendMicros: number;
  orders: number;
  served: number;
  refundedClicks: number;
  refundedSpendMicros: number;
}

export const ZERO_TOTALS: Totals = {
  views: 0,
  clicks: 0,
  spendMicros: 0,
  orders: 0,
  served: 0,
  refundedClicks: 0,
  refundedSpendMicros: 0,
};

/** `targetId`: which conversions count as orders. 0 all goals; otherwise one goal of GOALS. */
export type TargetId = 0 | GoalId;

/** The advertiser's totals of summed rollup counters, `orders` counting the goals of `targetId`. */
export function totalsOf(sums: Record<RollupCounter, number>, targetId: TargetId): Totals {
  const goals = [sums.conversions_purchase, sums.conversions_registration, sums.conversions_intermediate] as const;
  return {
    views: sums.views,
    clicks: sums.clicks,
    spendMicros: sums.spend_micros,
    orders: targetId === 0 ? goals[0] + goals[1] + goals[2] : (goals[targetId - 1] ?? 0),
    served: sums.served,
    refundedClicks: sums.refunded_clicks,
    refundedSpendMicros: sums.refunded_spend_micros,
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
 * The derived rates of DESIGN.md §4: ctr = clicks/views·100, cr = orders/clicks·100,
 * cpm = money/views·1000, cpc = money/clicks, cpo = money/orders; 0 when the divisor is 0.
 * Money is in currency units, every rate rounded to 4 fraction digits.
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

/** The statistics block of Campaign, Ad and Campaign Statistics: counts, money and rates. */
export function advertiserFigures(totals: Totals) {
  return {
    views: totals.views,
    clicks: totals.clicks,
    money: microsToAmount(totals.spendMicros),
    orders: totals.orders,
    ...deriveRates(totals),
    served: totals.served,
    refundedClicks: totals.refundedClicks,
    refundedSpend: microsToAmount(totals.refundedSpendMicros),
  };
}

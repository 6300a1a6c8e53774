import type { RuleAction, RuleComparison, RuleMetric, RuleScope } from '../../../db/schema.ts';
import type { Totals } from '../../statistics/index.ts';

/** The coefficient "block" sets: the lowest a coefficient may be (spec: 0.1 to 10). */
export const BLOCK_COEF = 0.1;

/** What a rule tests and does; thresholds are the API's value times 1,000,000 (money, % or count). */
export interface RuleCondition {
  scope: RuleScope;
  metric: RuleMetric;
  comparison: RuleComparison;
  thresholdMicros: number;
  minClicks: number;
  /** Count only conversions reported with the postback key (pixel conversions left out). */
  authenticatedOnly: boolean;
  action: RuleAction;
  coef: number | null;
}

/** One site, block, device type or ad as a rule sees it: its figures and what the action would change. */
export interface RuleObject {
  siteId: number;
  blockId: number;
  device: number;
  offerId: number;
  totals: Totals;
  /** The coefficient in force (site, block, device) or 1/0 for an ad that is on/off. */
  current: number;
}

export interface PlannedChange extends RuleObject {
  field: 'coef' | 'active';
  before: number;
  after: number;
}

const MICROS = 1_000_000n;

/**
 * The metric as a fraction (numerator / denominator) scaled like thresholds, or undefined where it
 * has no value: CPA without conversions, CTR without views, spend without conversion when there
 * were conversions. Fractions keep the comparison exact (no floating point).
 */
function metricFraction(metric: RuleMetric, totals: Totals, authenticatedOnly: boolean): [bigint, bigint] | undefined {
  const views = BigInt(totals.views);
  const clicks = BigInt(totals.clicks);
  const spend = BigInt(totals.spendMicros);
  const orders = BigInt(authenticatedOnly ? totals.orders - totals.pixelOrders : totals.orders);
  switch (metric) {
    case 'cpa':
      return orders > 0n ? [spend, orders] : undefined;
    case 'ctr':
      return views > 0n ? [clicks * 100n * MICROS, views] : undefined;
    case 'conversions':
      return [orders * MICROS, 1n];
    case 'spend_without_conversion':
      return orders === 0n ? [spend, 1n] : undefined;
  }
}

/** Whether the object's figures cross the rule's threshold (after at least `minClicks` clicks). */
export function crossesThreshold(condition: RuleCondition, totals: Totals): boolean {
  if (totals.clicks < condition.minClicks) return false;
  const fraction = metricFraction(condition.metric, totals, condition.authenticatedOnly);
  if (fraction === undefined) return false;
  const [numerator, denominator] = fraction;
  const left = numerator;
  const right = BigInt(condition.thresholdMicros) * denominator;
  switch (condition.comparison) {
    case 'gt':
      return left > right;
    case 'gte':
      return left >= right;
    case 'lt':
      return left < right;
    case 'lte':
      return left <= right;
  }
}

/** The value the action leaves: the rule's coefficient, the blocking coefficient, or 0 (an ad paused). */
export function targetValue(condition: RuleCondition): number {
  if (condition.action === 'pause') return 0;
  if (condition.action === 'block') return BLOCK_COEF;
  return condition.coef ?? 1;
}

/**
 * The changes a rule makes to these objects: those that cross the threshold and are not already
 * where the action would put them, in a stable order (site, block, device, ad). The dry run and
 * the run both use this list, so they change exactly the same rows.
 */
export function planChanges(condition: RuleCondition, objects: readonly RuleObject[]): PlannedChange[] {
  const after = targetValue(condition);
  const field = condition.action === 'pause' ? 'active' : 'coef';
  return objects
    .filter((object) => object.current !== after && crossesThreshold(condition, object.totals))
    .map((object) => ({ ...object, field, before: object.current, after }))
    .sort(
      (a, b) => a.siteId - b.siteId || a.blockId - b.blockId || a.device - b.device || a.offerId - b.offerId,
    ) as PlannedChange[];
}

/** The window of a rule ending on `today` (inclusive): `days` calendar days. */
export function ruleWindow(today: string, days: number): { from: string; to: string } {
  const end = Date.parse(`${today}T00:00:00Z`);
  const from = new Date(end - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return { from, to: today };
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crossesThreshold, type RuleCondition } from '../../../../src/modules/advertiser/rules/rule-evaluation.ts';
import { type Totals, ZERO_TOTALS } from '../../../../src/modules/statistics/vocabulary.ts';

/** A rule told to count only authenticated conversions leaves the pixel's out of every metric. */
describe('rules: authenticated conversions only', () => {
  // 10 clicks for 10.00, 4 conversions of which 3 came by pixel.
  const totals: Totals = { ...ZERO_TOTALS, views: 1000, clicks: 10, spendMicros: 10_000_000, orders: 4, pixelOrders: 3 };
  const rule = (metric: RuleCondition['metric'], threshold: number, authenticatedOnly: boolean): RuleCondition => ({
    scope: 'site',
    metric,
    comparison: 'gte',
    thresholdMicros: threshold * 1_000_000,
    minClicks: 0,
    authenticatedOnly,
    action: 'block',
    coef: null,
  });
  const cases: [RuleCondition['metric'], number, boolean, boolean][] = [
    ['cpa', 5, false, false], // 10.00 / 4 = 2.50
    ['cpa', 5, true, true], // 10.00 / 1 = 10.00
    ['conversions', 2, false, true],
    ['conversions', 2, true, false],
    ['spend_without_conversion', 1, true, false],
  ];
  for (const [metric, threshold, authenticatedOnly, crosses] of cases) {
    it(`${metric} ≥ ${threshold}${authenticatedOnly ? ', authenticated only' : ''}: ${crosses}`, () => {
      assert.equal(crossesThreshold(rule(metric, threshold, authenticatedOnly), totals), crosses);
    });
  }

  it('counts no conversion at all when every one came by pixel', () => {
    const pixelOnly = { ...totals, pixelOrders: 4 };
    assert.equal(crossesThreshold(rule('spend_without_conversion', 1, true), pixelOnly), true);
    assert.equal(crossesThreshold(rule('spend_without_conversion', 1, false), pixelOnly), false);
  });
});

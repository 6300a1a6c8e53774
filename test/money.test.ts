import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { microsToAmount, microsToCents, parseMoney } from '../src/money.ts';

describe('parseMoney', () => {
  const cases: [unknown, number | undefined][] = [
    [0, 0],
    ['0', 0],
    [1, 1_000_000],
    ['1', 1_000_000],
    [0.1, 100_000],
    ['0.1', 100_000],
    [0.3, 300_000],
    ['12.3456', 12_345_600],
    [12.3456, 12_345_600],
    ['12.34560000', 12_345_600],
    [' 7.5 ', 7_500_000],
    ['-0.0001', -100],
    [-250.5, -250_500_000],
    [1_000_000_000, 1_000_000_000_000_000],
    ['12.34567', undefined],
    [0.00001, undefined],
    [1e-7, undefined],
    ['1e3', undefined],
    ['1,5', undefined],
    ['.5', undefined],
    ['', undefined],
    ['abc', undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [1_000_000_001, undefined],
    [1e300, undefined],
    [null, undefined],
    [true, undefined],
    [{}, undefined],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input) ?? String(input)} → ${expected}`, () => {
      assert.equal(parseMoney(input), expected);
    });
  }

  it('microsToAmount rounds to 4 fraction digits and microsToCents rounds down', () => {
    for (const [micros, amount, cents] of [
      [0, 0, 0],
      [1_000_000, 1, 100],
      [12_345_600, 12.3456, 1234],
      [12_345_650, 12.3457, 1234],
      [99, 0.0001, 0],
      [-1_500_000, -1.5, -150],
    ] as const) {
      assert.equal(microsToAmount(micros), amount);
      assert.equal(microsToCents(micros), cents);
    }
  });
});

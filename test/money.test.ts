import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { microsToAmount, microsToCents, microsToDecimal, parseMoney } from '../src/money.ts';

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

describe('microsToDecimal', () => {
  const cases: [number, string][] = [
    [0, '0'],
    [7_000, '0.007'],
    [123_457, '0.123457'],
    [1, '0.000001'],
    [10, '0.00001'],
    [3_000_000, '3'],
    [12_345_600, '12.3456'],
    [-2_500_000, '-2.5'],
    [-1, '-0.000001'],
    [Number.MAX_SAFE_INTEGER, '9007199254.740991'],
  ];
  for (const [micros, text] of cases) {
    it(`${micros} → ${text}`, () => {
      assert.equal(microsToDecimal(micros), text);
      // The text reads back to the same micros (parseMoney takes 4 fraction digits, so compare by digits).
      const [whole = '', fraction = ''] = text.replace('-', '').split('.');
      assert.equal(Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0')), Math.abs(micros));
    });
  }

  it('refuses what is not a whole number of micros', () => {
    assert.throws(() => microsToDecimal(0.5), RangeError);
    assert.throws(() => microsToDecimal(Number.NaN), RangeError);
    assert.throws(() => microsToDecimal(2 ** 60), RangeError);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clearingPriceOf } from '../../../../src/modules/serving/openrtb/bid-notices.ts';
import { categoriesAllowed, categoryRulesOf } from '../../../../src/modules/serving/openrtb/iab-categories.ts';

describe('IAB categories of a request, judged per ad', () => {
  const cases: [string, readonly string[], Parameters<typeof categoryRulesOf>[0], boolean][] = [
    ['no restriction, no codes', [], {}, true],
    ['no restriction', ['IAB19-6'], { bcat: [] }, true],
    ['the same code blocked', ['IAB19-6'], { bcat: ['IAB19-6'] }, false],
    ['its tier-1 code blocked', ['IAB19-6'], { bcat: ['IAB19'] }, false],
    ['a sibling sub-code blocked', ['IAB19-6'], { bcat: ['IAB19-5'] }, true],
    ['a sub-code of the ad’s tier-1-only code blocked', ['IAB19'], { bcat: ['IAB19-5'] }, false],
    ['a code that only starts alike', ['IAB1-5'], { bcat: ['IAB1-50', 'IAB10'] }, true],
    ['one of several codes blocked', ['IAB8-5', 'IAB8-18'], { bcat: ['IAB8-18'] }, false],
    ['case and spaces', ['IAB13-6'], { bcat: [' iab13 '] }, false],
    ['no codes under a restriction', [], { bcat: ['IAB26'] }, false],
    ['another taxonomy restricting', ['IAB19'], { bcat: ['596'], cattax: 2 }, false],
    ['another taxonomy, no restriction', ['IAB19'], { cattax: 2 }, true],
    ['Content Taxonomy 1.0 named', ['IAB19'], { bcat: ['IAB25'], cattax: 1 }, true],
    ['allowed by its tier-1 code', ['IAB19-6'], { acat: ['IAB19'] }, true],
    ['allowed exactly', ['IAB19-6'], { acat: ['IAB19-6'] }, true],
    ['a tier-1-only ad under an allowed sub-code', ['IAB19'], { acat: ['IAB19-6'] }, false],
    ['one code outside the allow list', ['IAB10-1', 'IAB19-18'], { acat: ['IAB10'] }, false],
    ['an empty allow list', ['IAB19'], { acat: [] }, false],
  ];
  for (const [name, codes, request, expected] of cases) {
    it(name, () => assert.equal(categoriesAllowed(codes, categoryRulesOf(request)), expected));
  }
});

describe('clearing price of a notice, in micros', () => {
  const bid = 5_000_000;
  const taken: [string | undefined, number | null][] = [
    [undefined, null],
    ['', null],
    [`\${AUCTION_PRICE}`, null],
    ['5', 5_000_000],
    ['5.000000', 5_000_000],
    ['0.0021', 2100],
    ['1.2345679', 1_234_567],
    ['0', 0],
  ];
  for (const [text, micros] of taken) {
    it(`takes ${JSON.stringify(text)}`, () => assert.equal(clearingPriceOf(text, bid), micros));
  }
  for (const text of ['5.000001', '6', '-1', '1e3', 'abc', '0x10', '1,5']) {
    it(`refuses ${text}`, () =>
      assert.throws(
        () => clearingPriceOf(text, bid),
        (error: { code?: string }) => error.code === 'clearing_price_refused',
      ));
  }
});

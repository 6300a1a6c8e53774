import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConsentDecider,
  type ConsentPolicy,
  type ConsentSignals,
  type ConsentVerdict,
  consentSignals,
  decideConsent,
} from '../../../../src/modules/serving/consent/consent.ts';
import { gppString, OTHER_VENDOR_ID, TEST_VENDOR_ID, tcString } from '../../../helpers/consent-strings.ts';

const none: ConsentSignals = { gdpr: undefined, tcString: undefined, gpp: undefined, gppSectionIds: undefined, gpc: false };
const withVendor: ConsentPolicy = { vendorId: TEST_VENDOR_ID };
const purposesOnly: ConsentPolicy = { vendorId: undefined };
const verdict = (signals: Partial<ConsentSignals>, policy = withVendor): ConsentVerdict =>
  decideConsent({ ...none, ...signals }, policy);
const reason = (result: ConsentVerdict) => (result.personalised ? 'personalised' : result.reason);

describe('consent: real TC strings for each combination of purposes 1, 3 and 4', () => {
  const subsets: number[][] = [[], [1], [3], [4], [1, 3], [1, 4], [3, 4], [1, 3, 4], [1, 2, 3, 4, 5, 6, 7]];
  for (const purposes of subsets) {
    const granted = [1, 3, 4].every((purpose) => purposes.includes(purpose));
    it(`purposes [${purposes.join(',')}] → ${granted ? 'personalised' : 'not personalised'}`, () => {
      const text = tcString(purposes);
      assert.equal(verdict({ gdpr: 1, tcString: text }).personalised, granted);
      // A TC string without gdpr is taken to mean that GDPR applies.
      assert.equal(verdict({ tcString: text }).personalised, granted);
      if (!granted) assert.equal(reason(verdict({ gdpr: 1, tcString: text })), 'tcf_no_consent');
    });
  }

  it('the vendor must be consented to when TCF_VENDOR_ID is set; without it the purposes decide', () => {
    const other = tcString([1, 3, 4], [OTHER_VENDOR_ID]);
    assert.equal(reason(verdict({ gdpr: 1, tcString: other })), 'tcf_vendor');
    assert.equal(reason(verdict({ gdpr: 1, tcString: other }, purposesOnly)), 'personalised');
  });

  it('gdpr=1 without a TC string (a CMP that did not answer) is no consent; gdpr=0 is personalised', () => {
    assert.equal(reason(verdict({ gdpr: 1 })), 'tcf_no_consent');
    assert.equal(reason(verdict({ gdpr: 0, tcString: tcString([]) })), 'personalised');
    assert.equal(reason(verdict({})), 'personalised');
  });

  it('malformed TC strings are no consent and never throw', () => {
    const good = tcString([1, 3, 4]);
    for (const bad of ['garbage', 'CQ', '!!!!', good.slice(0, 10), `${good.slice(0, -8)}@@@@`, 'A'.repeat(4000), '.']) {
      const result = verdict({ gdpr: 1, tcString: bad });
      assert.equal(result.personalised, false, bad);
    }
  });
});

describe('consent: Global Privacy Control and GPP', () => {
  const consented = tcString([1, 3, 4]);

  it('GPC overrides a TC string that consents', () => {
    assert.equal(reason(verdict({ gdpr: 1, tcString: consented, gpc: true })), 'gpc');
    assert.equal(consentSignals({}, '1').gpc, true);
    assert.equal(consentSignals({ gpc: '1' }, undefined).gpc, true);
    assert.equal(consentSignals({}, '0').gpc, false);
  });

  const usCases: [string, Record<string, Record<string, unknown>>, boolean][] = [
    ['usnat sale opt-out', { usnat: { SaleOptOutNotice: 1, SaleOptOut: 1 } }, false],
    [
      'usnat targeted advertising opt-out',
      { usnat: { TargetedAdvertisingOptOutNotice: 1, TargetedAdvertisingOptOut: 1 } },
      false,
    ],
    ['usnat no opt-out', { usnat: { SaleOptOutNotice: 1, SaleOptOut: 2, TargetedAdvertisingOptOut: 2 } }, true],
    ['usca sharing opt-out', { usca: { SharingOptOutNotice: 1, SharingOptOut: 1 } }, false],
    ['usca no opt-out', { usca: { SaleOptOut: 2, SharingOptOut: 2 } }, true],
    ['usva sale opt-out', { usva: { SaleOptOut: 1 } }, false],
    ['uspv1 opt-out of sale', { uspv1: { Notice: 'Y', OptOutSale: 'Y', LspaCovered: 'N' } }, false],
    ['uspv1 no opt-out', { uspv1: { Notice: 'Y', OptOutSale: 'N', LspaCovered: 'N' } }, true],
  ];
  for (const [name, sections, personalised] of usCases) {
    it(`GPP ${name} → ${personalised ? 'personalised' : 'us_opt_out'}`, () => {
      const gpp = gppString(sections);
      assert.equal(reason(verdict({ gpp })), personalised ? 'personalised' : 'us_opt_out');
    });
  }

  it('an opt-out in a section that does not apply (gpp_sid) is not read', () => {
    const gpp = gppString({ usnat: { SaleOptOut: 1 }, uspv1: { Notice: 'Y', OptOutSale: 'N', LspaCovered: 'N' } });
    assert.equal(reason(verdict({ gpp, gppSectionIds: [6] })), 'personalised');
    assert.equal(reason(verdict({ gpp, gppSectionIds: [7] })), 'us_opt_out');
    assert.deepEqual(consentSignals({ gpp_sid: '6,7' }, undefined).gppSectionIds, [6, 7]);
  });

  it("GPP's TCF EU section decides when there is no separate TC string", () => {
    const consents = (granted: number[]) => Array.from({ length: 24 }, (_, index) => granted.includes(index + 1));
    const yes = gppString({ tcfeuv2: { PurposeConsents: consents([1, 3, 4]), VendorConsents: [TEST_VENDOR_ID] } });
    const no = gppString({ tcfeuv2: { PurposeConsents: consents([1, 3]), VendorConsents: [TEST_VENDOR_ID] } });
    assert.equal(reason(verdict({ gpp: yes, gppSectionIds: [2] })), 'personalised');
    assert.equal(reason(verdict({ gpp: no, gppSectionIds: [2] })), 'tcf_no_consent');
  });

  it('malformed GPP strings are no consent and never throw', () => {
    for (const bad of ['garbage~x', 'DBABLA~', '~~~', 'D', 'DBABLA~@@@', 'A'.repeat(8000)]) {
      assert.equal(verdict({ gpp: bad }).personalised, false, bad);
    }
  });
});

describe('consent: the remembering decider', () => {
  it('answers what decideConsent answers, for repeated and changing strings', () => {
    const decider = new ConsentDecider(withVendor);
    const cases: Partial<ConsentSignals>[] = [
      { gdpr: 1, tcString: tcString([1, 3, 4]) },
      { gdpr: 1, tcString: tcString([1]) },
      { gdpr: 0, tcString: tcString([1]) },
      { gpp: gppString({ usnat: { SaleOptOut: 1 } }) },
      { gpp: gppString({ usnat: { SaleOptOut: 1 } }), gppSectionIds: [6] },
      { gdpr: 1, tcString: tcString([1, 3, 4]), gpc: true },
      { gdpr: 1, tcString: 'garbage' },
    ];
    for (let round = 0; round < 3; round += 1) {
      for (const signals of cases)
        assert.deepEqual(decider.decide({ ...none, ...signals }), verdict(signals), JSON.stringify(signals));
    }
  });
});

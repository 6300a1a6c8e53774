import { GppModel } from '@iabgpp/cmpapi';
import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';

/** The vendor id the tests give Nativa (TCF_VENDOR_ID). */
export const TEST_VENDOR_ID = 1234;
/** Another vendor, for strings that consent to someone else. */
export const OTHER_VENDOR_ID = 77;

/**
 * A small Global Vendor List: the IAB encoder refuses to encode without one. It lists the eleven
 * purposes, the two special features and two vendors; nothing is fetched.
 */
function testVendorList(): GVL {
  const named = (count: number) =>
    Object.fromEntries(
      Array.from({ length: count }, (_, index) => [
        index + 1,
        { id: index + 1, name: `n${index + 1}`, description: '', illustrations: [] },
      ]),
    );
  const vendor = (id: number) => ({
    id,
    name: `vendor ${id}`,
    purposes: [1, 3, 4],
    legIntPurposes: [2, 7],
    flexiblePurposes: [],
    specialPurposes: [],
    features: [],
    specialFeatures: [],
    cookieMaxAgeSeconds: 0,
    usesCookies: true,
    cookieRefresh: false,
    usesNonCookieAccess: true,
    dataRetention: { stdRetention: 30, purposes: {}, specialPurposes: {} },
    dataDeclaration: [],
    urls: [],
  });
  return new GVL({
    gvlSpecificationVersion: 3,
    vendorListVersion: 1,
    tcfPolicyVersion: 5,
    lastUpdated: '2026-01-01T00:00:00Z',
    purposes: named(11),
    specialPurposes: {},
    features: {},
    specialFeatures: named(2),
    stacks: {},
    dataCategories: {},
    vendors: { [TEST_VENDOR_ID]: vendor(TEST_VENDOR_ID), [OTHER_VENDOR_ID]: vendor(OTHER_VENDOR_ID) },
  } as never);
}

/** A TCF v2.2 TC string (encoded by `@iabtechlabtcf/core`) consenting to these purposes and vendors. */
export function tcString(purposes: readonly number[], vendors: readonly number[] = [TEST_VENDOR_ID]): string {
  const model = new TCModel(testVendorList());
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.purposeConsents.set([...purposes]);
  model.vendorConsents.set([...vendors]);
  return TCString.encode(model);
}

/** A GPP string (encoded by `@iabgpp/cmpapi`) with the given section fields, e.g. `{usnat: {SaleOptOut: 1}}`. */
export function gppString(sections: Record<string, Record<string, unknown>>): string {
  const model = new GppModel();
  for (const [section, fields] of Object.entries(sections)) {
    for (const [field, value] of Object.entries(fields)) model.setFieldValue(section, field, value);
  }
  return model.encode();
}

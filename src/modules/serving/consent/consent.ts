import { GppModel } from '@iabgpp/cmpapi';
import { TCString } from '@iabtechlabtcf/core';

/**
 * What a teasers request (or the audience pixel) carries about the visitor's choices: the loader's
 * reading of the page's CMP (`gdpr`, `gdpr_consent`, `gpp`, `gpp_sid`) and Global Privacy Control
 * (the loader's `navigator.globalPrivacyControl` or the browser's `Sec-GPC: 1`).
 */
export interface ConsentSignals {
  /** 1: the CMP says GDPR applies (or a CMP is on the page and did not answer in time); 0: it does not. */
  gdpr: 0 | 1 | undefined;
  /** The TCF v2 TC string. */
  tcString: string | undefined;
  /** The GPP string. */
  gpp: string | undefined;
  /** The GPP section ids that apply to this visitor (the CMP's `applicableSections`). */
  gppSectionIds: readonly number[] | undefined;
  /** Global Privacy Control is on. */
  gpc: boolean;
  /** The IAB US Privacy (CCPA) string, `1YNN`: version, notice, opt-out of sale, LSPA. */
  usPrivacy?: string;
  /** The first parameter that could not be read at all (a number that is not 0 or 1, section ids that are not numbers). */
  unreadable?: UnreadableSignal;
}

/** The consent parameters, as the metric of unreadable ones names them. */
export const CONSENT_SIGNALS = ['gdpr', 'gdpr_consent', 'gpp', 'gpp_sid', 'gpc', 'us_privacy'] as const;
export type UnreadableSignal = (typeof CONSENT_SIGNALS)[number];

/**
 * The longest strings decoded: a TC string with a few thousand vendors is well under 4 KB. A longer
 * one is unreadable without being decoded (nor remembered by the decider).
 */
const MAX_DECODED_LENGTH: Record<'gdpr_consent' | 'gpp', number> = { gdpr_consent: 4096, gpp: 8192 };

/** What the network needs consent for, from configuration (docs/privacy.md). */
export interface ConsentPolicy {
  /** Nativa's IAB Global Vendor List id (TCF_VENDOR_ID); without one, the purpose consents alone decide. */
  vendorId: number | undefined;
}

/** Why an impression is served without personal data. */
export const NON_PERSONALISED_REASONS = ['site', 'gpc', 'us_opt_out', 'tcf_no_consent', 'tcf_vendor', 'malformed'] as const;
export type NonPersonalisedReason = (typeof NON_PERSONALISED_REASONS)[number];

/** A verdict; `malformed` names the parameter that could not be read (the metric nativa_consent_unreadable_total). */
export type ConsentVerdict =
  | { personalised: true }
  | { personalised: false; reason: NonPersonalisedReason; unreadable?: UnreadableSignal };

const unreadable = (signal: UnreadableSignal): ConsentVerdict => ({
  personalised: false,
  reason: 'malformed',
  unreadable: signal,
});

/**
 * TCF purposes personalisation needs: 1 (store or access information on a device), 3 (create a
 * personalised advertising profile), 4 (use it to select advertising). Retargeting and a stored
 * visitor id are both a profile kept on and read from the device.
 */
export const REQUIRED_PURPOSES = [1, 3, 4] as const;

/** The GPP section id of the TCF EU v2 section. */
const GPP_TCF_EU = 2;
/** GPP section ids of the US privacy sections: uspv1 (6), usnat (7), and the states (8 and up). */
const GPP_USP_V1 = 6;
const GPP_US_FIRST = 7;
/** The opt-out fields of the US sections: 1 means the visitor opted out (2: did not, 0: not applicable). */
const US_OPT_OUT_FIELDS = ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'] as const;

const PERSONALISED: ConsentVerdict = { personalised: true };

/**
 * Decides whether an impression may use personal data (a visitor id, retargeting audiences,
 * frequency counters), with the IAB's own decoders: `@iabtechlabtcf/core` for TC strings and
 * `@iabgpp/cmpapi` for GPP strings. Anything that does not decode counts as no consent; this never
 * throws. Without any signal (no CMP on the page, no GPC), the impression is personalised: where
 * the law requires consent, the publisher's CMP is how it is asked for.
 */
export function decideConsent(signals: ConsentSignals, policy: ConsentPolicy): ConsentVerdict {
  if (signals.gpc) return { personalised: false, reason: 'gpc' };
  if (signals.unreadable !== undefined) return unreadable(signals.unreadable);
  const tcString = signals.tcString === '' ? undefined : signals.tcString;
  if (signals.usPrivacy !== undefined && signals.usPrivacy !== '') {
    const optOut = usPrivacyOptOut(signals.usPrivacy);
    if (optOut === undefined) return unreadable('us_privacy');
    if (optOut) return { personalised: false, reason: 'us_opt_out' };
  }
  if (signals.gpp !== undefined && signals.gpp !== '') {
    const gpp = decodeGpp(signals.gpp);
    if (gpp === undefined) return unreadable('gpp');
    const applicable = signals.gppSectionIds ?? gpp.getSectionIds();
    if (applicable.some((id) => usOptOut(gpp, id))) return { personalised: false, reason: 'us_opt_out' };
    if (tcString === undefined && applicable.includes(GPP_TCF_EU) && gpp.hasSectionId(GPP_TCF_EU)) {
      return tcfVerdict(gppTcfConsents(gpp), policy);
    }
  }
  // `gdpr=0` is the CMP saying GDPR does not apply; a TC string without `gdpr` is taken to mean it
  // does; `gdpr=1` without a TC string (a CMP that did not answer in time) is no consent.
  if (signals.gdpr === 0 || (tcString === undefined && signals.gdpr === undefined)) return PERSONALISED;
  if (tcString === undefined) return { personalised: false, reason: 'tcf_no_consent' };
  const consents = decodeTcString(tcString);
  if (consents === undefined) return unreadable('gdpr_consent');
  return tcfVerdict(consents, policy);
}

interface TcfConsents {
  purposes: (purpose: number) => boolean;
  vendor: (vendorId: number) => boolean;
}

function tcfVerdict(consents: TcfConsents, policy: ConsentPolicy): ConsentVerdict {
  if (!REQUIRED_PURPOSES.every((purpose) => consents.purposes(purpose))) {
    return { personalised: false, reason: 'tcf_no_consent' };
  }
  if (policy.vendorId !== undefined && !consents.vendor(policy.vendorId)) return { personalised: false, reason: 'tcf_vendor' };
  return PERSONALISED;
}

/** The US Privacy string's opt-out of sale (`1YYN`: yes), or undefined when the string is not one. */
function usPrivacyOptOut(text: string): boolean | undefined {
  if (!/^1[YN-]{3}$/i.test(text)) return undefined;
  return text.charAt(2).toUpperCase() === 'Y';
}

function decodeTcString(text: string): TcfConsents | undefined {
  if (text.length > MAX_DECODED_LENGTH.gdpr_consent) return undefined;
  try {
    const model = TCString.decode(text);
    if (model.version !== 2) return undefined;
    return { purposes: (id) => model.purposeConsents.has(id), vendor: (id) => model.vendorConsents.has(id) };
  } catch {
    return undefined;
  }
}

function decodeGpp(text: string): GppModel | undefined {
  if (text.length > MAX_DECODED_LENGTH.gpp) return undefined;
  try {
    const model = new GppModel(text);
    // Sections decode lazily: reading every one now makes a bad string fail here, as a whole.
    model.toObject();
    return model;
  } catch {
    return undefined;
  }
}

function gppTcfConsents(gpp: GppModel): TcfConsents {
  const purposes = readField(gpp, GPP_TCF_EU, 'PurposeConsents');
  const vendors = readField(gpp, GPP_TCF_EU, 'VendorConsents');
  return {
    purposes: (id) => Array.isArray(purposes) && purposes[id - 1] === true,
    vendor: (id) => Array.isArray(vendors) && vendors.includes(id),
  };
}

/** Whether a US section of the GPP string says the visitor opted out of sale, sharing or targeted advertising. */
function usOptOut(gpp: GppModel, sectionId: number): boolean {
  if (sectionId === GPP_USP_V1) return readField(gpp, sectionId, 'OptOutSale') === 'Y';
  if (sectionId < GPP_US_FIRST) return false;
  return US_OPT_OUT_FIELDS.some((field) => readField(gpp, sectionId, field) === 1);
}

/** A field of a section, or undefined when the section or field is absent or does not decode. */
function readField(gpp: GppModel, sectionId: number, field: string): unknown {
  try {
    if (!gpp.hasSectionId(sectionId)) return undefined;
    return gpp.getFieldValueBySectionId(sectionId, field);
  } catch {
    return undefined;
  }
}

/** The consent parameters of a query as they arrive: any text (consent-query.ts). */
export interface ConsentQuery {
  gdpr?: string;
  gdpr_consent?: string;
  gpp?: string;
  gpp_sid?: string;
  gpc?: string;
  us_privacy?: string;
}

/**
 * Reads the signals from a request's query and headers (`Sec-GPC: 1`). Nothing here refuses a
 * request: a page's CMP with a bug must not cost the publisher its ads. A flag that is neither 0
 * nor 1, or section ids that are not numbers, make the signals `unreadable` (no consent).
 */
export function consentSignals(query: ConsentQuery, secGpc: string | string[] | undefined): ConsentSignals {
  const gdpr = readFlag(query.gdpr);
  const gpc = readFlag(query.gpc);
  const gppSectionIds = readSectionIds(query.gpp_sid);
  const unreadable: UnreadableSignal | undefined =
    gdpr === null ? 'gdpr' : gpc === null ? 'gpc' : gppSectionIds === null ? 'gpp_sid' : undefined;
  return {
    gdpr: gdpr ?? undefined,
    tcString: query.gdpr_consent,
    gpp: query.gpp,
    gppSectionIds: gppSectionIds ?? undefined,
    gpc: secGpc === '1' || gpc === 1,
    usPrivacy: query.us_privacy,
    ...(unreadable === undefined ? {} : { unreadable }),
  };
}

/** `0`, `1`, absent or empty (undefined), or null for anything else. */
function readFlag(value: string | undefined): 0 | 1 | undefined | null {
  if (value === undefined || value === '') return undefined;
  const trimmed = value.trim();
  if (trimmed === '0') return 0;
  if (trimmed === '1') return 1;
  return null;
}

/** `2,7` or `2_7` (`-1`: none applies), absent or empty (undefined), or null when they are not section ids. */
function readSectionIds(value: string | undefined): number[] | undefined | null {
  if (value === undefined || value === '') return undefined;
  if (!/^-?[0-9]{1,3}([,_]-?[0-9]{1,3})*$/.test(value)) return null;
  return value
    .split(/[,_]/)
    .map(Number)
    .filter((id) => Number.isInteger(id) && id > 0);
}

/** Verdicts kept per cache; the least recently decided are forgotten first. */
const CACHED_VERDICTS = 10_000;

/**
 * decideConsent with its verdicts remembered by the strings that made them: a visitor's page asks
 * for every block with the same strings, and decoding a GPP string costs about a tenth of a
 * millisecond. One per app (made at start-up), bounded.
 */
export class ConsentDecider {
  private readonly policy: ConsentPolicy;
  private readonly verdicts = new Map<string, ConsentVerdict>();

  constructor(policy: ConsentPolicy) {
    this.policy = policy;
  }

  decide(signals: ConsentSignals): ConsentVerdict {
    if (signals.gpc || signals.unreadable !== undefined) return decideConsent(signals, this.policy);
    if (signals.tcString === undefined && signals.gpp === undefined) return decideConsent(signals, this.policy);
    // Strings too long to decode are not remembered either: they would fill the cache with garbage.
    if (
      (signals.tcString?.length ?? 0) > MAX_DECODED_LENGTH.gdpr_consent ||
      (signals.gpp?.length ?? 0) > MAX_DECODED_LENGTH.gpp
    ) {
      return decideConsent(signals, this.policy);
    }
    const key = `${signals.gdpr ?? ''}\n${signals.tcString ?? ''}\n${signals.gpp ?? ''}\n${signals.gppSectionIds?.join(',') ?? '*'}\n${signals.usPrivacy ?? ''}`;
    const known = this.verdicts.get(key);
    if (known !== undefined) {
      this.verdicts.delete(key);
      this.verdicts.set(key, known);
      return known;
    }
    const verdict = decideConsent(signals, this.policy);
    if (this.verdicts.size >= CACHED_VERDICTS) {
      const oldest = this.verdicts.keys().next().value;
      if (oldest !== undefined) this.verdicts.delete(oldest);
    }
    this.verdicts.set(key, verdict);
    return verdict;
  }
}

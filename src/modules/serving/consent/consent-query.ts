import { Type } from '@sinclair/typebox';

/**
 * The consent parameters of a teasers request and of the audience pixel: what the loader read from
 * the page's CMP (or, on an advertiser's pixel, the IAB macros of the same names). Each is optional
 * and any text is taken: a value that cannot be read (a TC or GPP string that does not decode, a
 * flag that is neither 0 nor 1) counts as no consent and is counted in
 * `nativa_consent_unreadable_total{signal}` (docs/privacy.md), never a 422: a CMP's bug must not
 * empty the publisher's blocks.
 */
/**
 * Any text at all, NUL included: the consent strings only ever reach the IAB decoders, never the
 * database, so the API's usual refusal of NUL (input-types.ts) would only cost the page its ads.
 */
const AnyText = (description: string) => Type.Optional(Type.String({ pattern: '^[\\s\\S]*$', description }));

export const ConsentQueryFields = {
  gdpr: AnyText(
    "1 when the page's CMP says GDPR applies (the loader also sends 1 when a CMP is present but did not answer in time), 0 when it does not. Any other value cannot be read: no consent.",
  ),
  gdpr_consent: AnyText(
    'The TCF v2.2 TC string of the page’s CMP (`__tcfapi`). A string that does not decode (or is longer than 4096 characters) is no consent.',
  ),
  gpp: AnyText(
    'The GPP string of the page’s CMP (`__gpp`). A string that does not decode (or is longer than 8192 characters) is no consent.',
  ),
  gpp_sid: AnyText(
    'The GPP section ids that apply to the visitor, comma-separated (`2,7`; `-1` when none applies). Anything else is no consent.',
  ),
  gpc: AnyText(
    "1 when the browser's Global Privacy Control is on (`navigator.globalPrivacyControl`); `Sec-GPC: 1` counts the same. Any value but 0 or 1 cannot be read: no consent.",
  ),
  us_privacy: AnyText(
    'The IAB US Privacy (CCPA) string, `1YNN`: version 1, notice, opt-out of sale, LSPA. An opt-out of sale (`1YYN`) serves unpersonalised; a string not of this form is no consent.',
  ),
};

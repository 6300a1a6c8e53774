import { Type } from '@sinclair/typebox';

/**
 * The consent parameters of a teasers request and of the audience pixel: what the loader read from
 * the page's CMP (or, on an advertiser's pixel, the IAB macros of the same names). Each is optional;
 * a value that does not decode counts as no consent (docs/privacy.md), so the lengths only keep
 * requests bounded and the shape of those strings: base64url with `.` (and `~` in GPP), a TC string
 * v2 starting with `C` (version 2 in its first six bits) and a GPP string with `D` (header type 3).
 * Anything else is a 422 naming the field; a well-formed string that does not decode is no consent.
 */
export const ConsentQueryFields = {
  gdpr: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1,
      description:
        "1 when the page's CMP says GDPR applies (the loader also sends 1 when a CMP is present but did not answer in time), 0 when it does not.",
    }),
  ),
  gdpr_consent: Type.Optional(
    Type.String({
      maxLength: 4096,
      pattern: '^(C[A-Za-z0-9_.-]*)?$',
      description: 'The TCF v2.2 TC string of the page’s CMP (`__tcfapi`).',
    }),
  ),
  gpp: Type.Optional(
    Type.String({
      maxLength: 8192,
      pattern: '^(D[A-Za-z0-9_.~-]*)?$',
      description: 'The GPP string of the page’s CMP (`__gpp`).',
    }),
  ),
  gpp_sid: Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: '^(-?[0-9]{1,3}([,_]-?[0-9]{1,3})*)?$',
      description: 'The GPP section ids that apply to the visitor, comma-separated (`2,7`; `-1` when none applies).',
    }),
  ),
  gpc: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1,
      description:
        "1 when the browser's Global Privacy Control is on (`navigator.globalPrivacyControl`); `Sec-GPC: 1` counts the same.",
    }),
  ),
};

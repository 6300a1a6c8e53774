/**
 * The privacy signals of an OpenRTB request, read once: `regs.gdpr` and the TCF string
 * (`user.consent`, or `user.ext.consent` of OpenRTB 2.5 exchanges), `regs.gpp`/`gpp_sid`, and the
 * CCPA string `regs.us_privacy` (or `regs.ext.us_privacy`). This is the hook through which the
 * consent handling of the serving routes decides what the auction may use (AuctionContext.mayUseDevice).
 */
export interface PrivacySignals {
  gdprApplies: boolean;
  tcfConsent: string | undefined;
  gpp: string | undefined;
  gppSections: number[];
  usPrivacy: string | undefined;
  /** CCPA: the user opted out of the sale of their data (third character `Y`). */
  usPrivacyOptOut: boolean;
}

interface WithRegs {
  regs?: { gdpr?: number; gpp?: string; gpp_sid?: number[]; us_privacy?: string; ext?: unknown };
  user?: { consent?: string; ext?: unknown };
}

export function privacySignalsOf(request: WithRegs): PrivacySignals {
  const regsExt = objectOf(request.regs?.ext);
  const userExt = objectOf(request.user?.ext);
  const gdpr = request.regs?.gdpr ?? (regsExt.gdpr === 1 ? 1 : undefined);
  const usPrivacy = request.regs?.us_privacy ?? (typeof regsExt.us_privacy === 'string' ? regsExt.us_privacy : undefined);
  const consent = request.user?.consent ?? (typeof userExt.consent === 'string' ? userExt.consent : undefined);
  return {
    gdprApplies: gdpr === 1,
    tcfConsent: consent,
    gpp: request.regs?.gpp,
    gppSections: request.regs?.gpp_sid ?? [],
    usPrivacy,
    usPrivacyOptOut: usPrivacy !== undefined && usPrivacy.charAt(2).toUpperCase() === 'Y',
  };
}

function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

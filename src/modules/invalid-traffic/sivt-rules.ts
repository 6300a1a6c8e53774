/**
 * The after-the-fact rules of invalid traffic and their thresholds (docs/invalid-traffic.md,
 * docs/configuration.md). Each rule is off when its main threshold is 0.
 */
export interface SivtRules {
  /** How often each instance sweeps the recent clicks; 0: no timer (the sweep is run by hand, as tests do). */
  sweepMs: number;
  /**
   * How long after a click its views and settlement are waited for before it is judged: a beacon
   * is sent after a second in view and counted within another.
   */
  settleMs: number;
  /** no_opportunity: a click this soon after its teaser was served, with no viewable view of it; 0: off. */
  noOpportunityMs: number;
  /** repeat_click: more billed clicks than this from one visitor on one advertiser within the window; 0: off. */
  repeatClickMax: number;
  repeatClickWindowMs: number;
  /** concentration: a block's clicks in one /24 (/48) or network beyond this z-score over the network's CTR; 0: off. */
  concentrationZ: number;
  /** ... when that network holds at least this share of the block's clicks in the window ... */
  concentrationShare: number;
  /** ... and the block has at least this many clicks in the window (too few say nothing). */
  concentrationMinClicks: number;
  concentrationWindowMs: number;
  /** network_mismatch: a link clicked from another country and another network than it was served to. */
  networkMismatch: boolean;
}

export const SIVT_DEFAULTS: SivtRules = {
  sweepMs: 30_000,
  settleMs: 5_000,
  noOpportunityMs: 1_000,
  repeatClickMax: 3,
  repeatClickWindowMs: 3_600_000,
  concentrationZ: 5,
  concentrationShare: 0.3,
  concentrationMinClicks: 20,
  concentrationWindowMs: 3_600_000,
  networkMismatch: true,
};

/** The review rule's settings (configuration, docs/configuration.md). */
export interface ReviewRule {
  sharePercent: number;
  minClicks: number;
  windowMs: number;
}

/**
 * The review rule of sites: every `intervalMs` (0: never by itself; operators may still run it),
 * a site with at least `minClicks` clicks over the last `windowMs` of which `sharePercent` % or more
 * were refused or refunded goes to the operators' review queue (docs/invalid-traffic.md).
 */
export interface SiteReviewRule extends ReviewRule {
  intervalMs: number;
}

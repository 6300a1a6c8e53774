/**
 * Invalid traffic (docs/invalid-traffic.md): the reasons' vocabulary, decided on arrival by the
 * serving path (serving/tracking/invalid-traffic.ts) and after the fact by the sweeps here, and
 * the jobs the server runs (the sweeps, the review of sites).
 */
export {
  GIVT_REASONS,
  type GivtReason,
  INVALID_TRAFFIC_REASONS,
  type InvalidTrafficReason,
  SIVT_REASONS,
  type SivtReason,
} from '../serving/index.ts';
export { SiteReviewJob } from './site-review-job.ts';
export { SIVT_DEFAULTS, type SiteReviewRule, type SivtRules } from './sivt-rules.ts';
export { SivtSweeper, type SweepResult, type SweptReason } from './sivt-sweeper.ts';

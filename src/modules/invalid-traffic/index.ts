/**
 * Invalid traffic (docs/invalid-traffic.md): the reasons' vocabulary, decided on arrival by the
 * serving path (serving/tracking/invalid-traffic.ts) and after the fact by the sweeps here.
 */
export {
  GIVT_REASONS,
  type GivtReason,
  INVALID_TRAFFIC_REASONS,
  type InvalidTrafficReason,
  SIVT_REASONS,
  type SivtReason,
} from '../serving/tracking/invalid-traffic.ts';
export { SIVT_DEFAULTS, type SivtRules } from './sivt-rules.ts';
export { SivtSweeper, type SweepResult, type SweptReason } from './sivt-sweeper.ts';

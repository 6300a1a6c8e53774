/**
 * What other modules use of serving: the engine the server builds (and the metrics read), the
 * vocabulary of invalid traffic decided on arrival, the targeting and schedule vocabulary a
 * campaign is checked against, postback keys' hashing and the signing secret.
 */
export { BROWSER_FAMILIES, DEVICE_TYPES, OS_FAMILIES, readTarget } from './selection/agent-targets.ts';
export { HOURS_PER_WEEK, isTimeZone } from './selection/schedule.ts';
export { createServingEngine, networkSources, type ServingEngine, type ServingTally } from './serving-engine.ts';
export { loadSigningSecret } from './tracking/click-token.ts';
export {
  GIVT_REASONS,
  type GivtReason,
  INVALID_TRAFFIC_REASONS,
  type InvalidTrafficReason,
  SIVT_REASONS,
  type SivtReason,
} from './tracking/invalid-traffic.ts';
export { Networks } from './tracking/networks.ts';
export { hashPostbackKey } from './tracking/postback-key.ts';

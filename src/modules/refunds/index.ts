/**
 * What other modules use of refunds: refunding clicks (the invalid-traffic sweeps), the reason
 * schema, and the click-flood detector the server runs.
 */
export { ClickFloodDetector } from './click-flood-detector.ts';
export type { ClickFloodRule } from './click-flood-rule.ts';
export { ReasonSchema } from './refund-schema.ts';
export { MAX_REFUND_CLICK_IDS, refundClicks } from './refund-service.ts';
